//! Which requests `annex serve` accepts from a browser: the checks local
//! development servers make so that other web pages cannot drive it.
//!
//! - `Host` must name this server: `localhost`, an IP address, or a name
//!   given with `--allow-host`, with the server's port. A page that
//!   rebinds its own DNS name to 127.0.0.1 sends its own name, so it can
//!   neither drive the server nor read its answers.
//! - `Origin`, when a request carries one, must be such a host too: a
//!   page elsewhere gets 403 for every request (cross-origin writes
//!   included).
//! - A `POST` body must be `Content-Type: application/json`, which a page
//!   elsewhere cannot send without a CORS preflight the server never
//!   grants (no `Access-Control-Allow-*` header is ever sent).

use super::http::Request;
use std::net::IpAddr;

/// The hosts and port the server answers for.
#[derive(Clone, Debug)]
pub struct Guard {
    port: u16,
    names: Vec<String>,
}

impl Guard {
    /// A guard for a server on `port` that also answers for `names`.
    pub fn new(port: u16, names: &[String]) -> Guard {
        let mut all = vec!["localhost".to_string()];
        all.extend(names.iter().map(|n| n.to_ascii_lowercase()));
        Guard { port, names: all }
    }

    /// Why `request` is refused (status and message), if it is.
    pub fn check(&self, request: &Request) -> Result<(), (u16, String)> {
        let host = request
            .header("host")
            .ok_or((400, "missing Host header".to_string()))?;
        if !self.host_ok(host) {
            return Err((403, format!("unknown Host {host:?}")));
        }
        if let Some(origin) = request.header("origin") {
            let ok = origin
                .strip_prefix("http://")
                .is_some_and(|h| self.host_ok(h));
            if !ok {
                return Err((403, format!("cross-origin request from {origin:?}")));
            }
        }
        if request.header("sec-fetch-site") == Some("cross-site") {
            return Err((403, "cross-site request".to_string()));
        }
        if request.method == "POST" {
            let ct = request.header("content-type").unwrap_or("");
            let media = ct.split(';').next().unwrap_or("").trim();
            if !media.eq_ignore_ascii_case("application/json") {
                return Err((
                    415,
                    "the body must be Content-Type: application/json".into(),
                ));
            }
        }
        Ok(())
    }

    /// Whether `host` (`name[:port]`) is this server.
    fn host_ok(&self, host: &str) -> bool {
        let (name, port) = split_host(host);
        let port_ok = match port {
            Some(p) => p.parse::<u16>() == Ok(self.port),
            None => self.port == 80,
        };
        let name = name.to_ascii_lowercase();
        let name_ok = name.parse::<IpAddr>().is_ok()
            || name
                .strip_prefix('[')
                .and_then(|n| n.strip_suffix(']'))
                .is_some_and(|n| n.parse::<std::net::Ipv6Addr>().is_ok())
            || self.names.contains(&name);
        port_ok && name_ok
    }
}

/// `name` and port of `name[:port]` (`[v6]:port` too).
fn split_host(host: &str) -> (&str, Option<&str>) {
    if host.starts_with('[') {
        return match host.rsplit_once("]:") {
            Some((n, p)) => (&host[..n.len() + 1], Some(p)),
            None => (host, None),
        };
    }
    match host.rsplit_once(':') {
        Some((n, p)) => (n, Some(p)),
        None => (host, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(method: &str, headers: &[(&str, &str)]) -> Request {
        Request {
            method: method.into(),
            target: "/".into(),
            headers: headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            body: Vec::new(),
            keep_alive: false,
        }
    }

    #[test]
    fn hosts_and_origins() {
        let g = Guard::new(8080, &["box.lan".to_string()]);
        for host in [
            "127.0.0.1:8080",
            "localhost:8080",
            "[::1]:8080",
            "192.168.1.2:8080",
            "BOX.lan:8080",
        ] {
            assert!(g.check(&req("GET", &[("host", host)])).is_ok(), "{host}");
        }
        for host in ["evil.example:8080", "127.0.0.1:8081", "localhost", "[::1]"] {
            assert_eq!(g.check(&req("GET", &[("host", host)])).unwrap_err().0, 403);
        }
        let h = ("host", "127.0.0.1:8080");
        let json = ("content-type", "application/json; charset=utf-8");
        assert!(g.check(&req("POST", &[h, json])).is_ok());
        let same = ("origin", "http://localhost:8080");
        assert!(g.check(&req("POST", &[h, json, same])).is_ok());
        let evil = ("origin", "http://evil.example");
        assert_eq!(g.check(&req("POST", &[h, json, evil])).unwrap_err().0, 403);
        let null = ("origin", "null");
        assert_eq!(g.check(&req("GET", &[h, null])).unwrap_err().0, 403);
        let text = ("content-type", "text/plain");
        assert_eq!(g.check(&req("POST", &[h, text])).unwrap_err().0, 415);
        assert_eq!(g.check(&req("POST", &[h])).unwrap_err().0, 415);
        assert_eq!(g.check(&req("GET", &[])).unwrap_err().0, 400);
    }
}
