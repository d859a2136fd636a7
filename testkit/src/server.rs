//! A small HTTP/1.1 server on 127.0.0.1 for the tests: canned replies by exact request target, and a
//! record of every request received (target, headers, arrival time).

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

/// A reply the server sends.
#[derive(Clone, Debug)]
pub struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
    delay: Duration,
}

impl Reply {
    /// A JSON reply.
    pub fn json(status: u16, body: impl Into<String>) -> Self {
        Self {
            status,
            headers: vec![("Content-Type".to_owned(), "application/json".to_owned())],
            body: body.into(),
            delay: Duration::ZERO,
        }
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Waits this long before answering.
    pub fn delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

/// A request the server received.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// The method.
    pub method: String,
    /// The request target as sent: path and query string.
    pub target: String,
    /// The headers, names lowercased.
    pub headers: Vec<(String, String)>,
    /// When it arrived.
    pub at: Instant,
}

impl Recorded {
    /// The value of a header.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Default)]
struct State {
    routes: HashMap<String, VecDeque<Reply>>,
    requests: Vec<Recorded>,
}

/// The server; it runs until the test process ends.
pub struct TestServer {
    base_url: String,
    state: Arc<Mutex<State>>,
}

impl TestServer {
    /// Starts a server on a free port of 127.0.0.1.
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let base_url = format!("http://{}", listener.local_addr().expect("address"));
        let state = Arc::new(Mutex::new(State::default()));
        let shared = Arc::clone(&state);
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let state = Arc::clone(&shared);
                thread::spawn(move || serve(stream, &state));
            }
        });
        Self { base_url, state }
    }

    /// `http://127.0.0.1:<port>`.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// Replies to requests for `target` (path and query, exactly as sent) with `replies` in turn; the
    /// last one repeats. A request for any other target gets a 501.
    pub fn on(&self, target: &str, replies: impl IntoIterator<Item = Reply>) {
        self.lock()
            .routes
            .insert(target.to_owned(), replies.into_iter().collect());
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.lock().requests.clone()
    }

    /// The targets of every request received so far.
    pub fn targets(&self) -> Vec<String> {
        self.requests().into_iter().map(|r| r.target).collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn serve(stream: TcpStream, state: &Mutex<State>) {
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let target = parts.next().unwrap_or_default().to_owned();
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let reply = {
        let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
        state.requests.push(Recorded {
            method,
            target: target.clone(),
            headers,
            at: Instant::now(),
        });
        match state.routes.get_mut(&target) {
            Some(replies) if replies.len() > 1 => replies.pop_front(),
            Some(replies) => replies.front().cloned(),
            None => None,
        }
    }
    .unwrap_or_else(|| Reply::json(501, format!("{{\"detail\": \"no route for {target}\"}}")));
    thread::sleep(reply.delay);
    let mut response = format!("HTTP/1.1 {} {}\r\n", reply.status, reason(reply.status));
    for (name, value) in &reply.headers {
        response.push_str(&format!("{name}: {value}\r\n"));
    }
    response.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n{}",
        reply.body.len(),
        reply.body
    ));
    let mut stream = stream;
    // The client may have given up already (a timeout test): nothing to do about a broken pipe.
    let _ = stream.write_all(response.as_bytes());
    let _ = stream.flush();
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        302 => "Found",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Other",
    }
}

/// The query of the REST tests' listing of green products (`brand`, `is_green`, `is_prepay`).
pub const GREEN_FILTERS: &str = "brand=OCTOPUS_ENERGY&is_green=true&is_prepay=false";

/// Serves the three pages of green products (`tests/fixtures/rest/products_green_page<n>.json`, three
/// products a page, each page's `next` on this server).
pub fn serve_green_products(server: &TestServer) {
    for page in 1..=3 {
        let target = if page == 1 {
            format!("/v1/products/?{GREEN_FILTERS}&page_size=3")
        } else {
            format!("/v1/products/?{GREEN_FILTERS}&page={page}&page_size=3")
        };
        let body = crate::fixture(
            &format!("rest/products_green_page{page}.json"),
            server.base_url(),
        );
        server.on(&target, [Reply::json(200, body)]);
    }
}
