//! Regression tests for issue #12 (hardening): NBoard and GTP.
