//! Regression tests for issue #12 (hardening): protocol.
