//! A hostile HTTP/1.1 server on 127.0.0.1, for the tests that try the clients and the `energy` CLI as
//! an attacker would: a handler decides each response from the request, bodies can be streamed
//! (gigabytes that are never held in memory), compressed, trickled byte by byte, or endless, and the
//! server counts the requests it answered and the body bytes it managed to send.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::Duration;

/// A request as the handler sees it.
#[derive(Clone, Debug)]
pub struct Request {
    /// Path and query, as sent.
    pub target: String,
    /// The headers, names lowercased.
    pub headers: Vec<(String, String)>,
}

impl Request {
    /// The value of a header.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A body the server sends.
#[derive(Clone, Debug)]
pub enum Body {
    /// These bytes.
    Bytes(Arc<Vec<u8>>),
    /// `chunk`, `count` times, streamed (never held whole).
    Repeat {
        /// The bytes repeated.
        chunk: Arc<Vec<u8>>,
        /// How many times.
        count: u64,
    },
    /// One byte every `interval`, `count` times.
    Trickle {
        /// The wait between bytes.
        interval: Duration,
        /// How many bytes.
        count: u64,
    },
}

impl Body {
    /// The body's length in bytes.
    pub fn len(&self) -> u64 {
        match self {
            Body::Bytes(bytes) => bytes.len() as u64,
            Body::Repeat { chunk, count } => chunk.len() as u64 * count,
            Body::Trickle { count, .. } => *count,
        }
    }

    /// Whether the body has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A response the handler gives.
#[derive(Clone, Debug)]
pub struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: Body,
    content_length: bool,
    delay: Duration,
}

impl Response {
    /// A JSON response with a `Content-Length`.
    pub fn json(status: u16, body: impl Into<Vec<u8>>) -> Self {
        Self {
            status,
            headers: vec![("Content-Type".to_owned(), "application/json".to_owned())],
            body: Body::Bytes(Arc::new(body.into())),
            content_length: true,
            delay: Duration::ZERO,
        }
    }

    /// A response with this body.
    pub fn body(status: u16, body: Body) -> Self {
        Self {
            body,
            ..Self::json(status, Vec::new())
        }
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Sends no `Content-Length`: the body ends when the connection closes.
    pub fn without_length(mut self) -> Self {
        self.content_length = false;
        self
    }

    /// Waits this long before answering.
    pub fn delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

type Handler = dyn Fn(&Request) -> Response + Send + Sync;

struct State {
    handler: Box<Handler>,
    answered: AtomicU64,
    body_bytes_sent: AtomicU64,
    targets: Mutex<Vec<String>>,
}

/// The server; it runs until the test process ends.
pub struct HostileServer {
    base_url: String,
    state: Arc<State>,
}

impl HostileServer {
    /// Starts a server on a free port of 127.0.0.1, answering every request with `handler`.
    pub fn start(handler: impl Fn(&Request) -> Response + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let base_url = format!("http://{}", listener.local_addr().expect("address"));
        let state = Arc::new(State {
            handler: Box::new(handler),
            answered: AtomicU64::new(0),
            body_bytes_sent: AtomicU64::new(0),
            targets: Mutex::new(Vec::new()),
        });
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

    /// Requests received so far.
    pub fn requests(&self) -> u64 {
        self.state.answered.load(Ordering::SeqCst)
    }

    /// Body bytes written to the sockets so far (accepted by the kernel, not necessarily read).
    pub fn body_bytes_sent(&self) -> u64 {
        self.state.body_bytes_sent.load(Ordering::SeqCst)
    }

    /// The targets requested so far, in order.
    pub fn targets(&self) -> Vec<String> {
        self.state
            .targets
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

fn serve(stream: TcpStream, state: &State) {
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let target = line
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .to_owned();
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
    let request = Request { target, headers };
    state
        .targets
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(request.target.clone());
    state.answered.fetch_add(1, Ordering::SeqCst);
    let response = (state.handler)(&request);
    thread::sleep(response.delay);
    let mut head = format!("HTTP/1.1 {} Hostile\r\n", response.status);
    for (name, value) in &response.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if response.content_length {
        head.push_str(&format!("Content-Length: {}\r\n", response.body.len()));
    }
    head.push_str("Connection: close\r\n\r\n");
    let mut stream = stream;
    if stream.write_all(head.as_bytes()).is_err() {
        return;
    }
    let mut send = |bytes: &[u8]| -> bool {
        let sent = stream.write_all(bytes).is_ok();
        if sent {
            state
                .body_bytes_sent
                .fetch_add(bytes.len() as u64, Ordering::SeqCst);
        }
        sent
    };
    // A client that gave up closes the connection: the next write fails and the body ends there.
    match &response.body {
        Body::Bytes(bytes) => {
            send(bytes);
        }
        Body::Repeat { chunk, count } => {
            for _ in 0..*count {
                if !send(chunk) {
                    break;
                }
            }
        }
        Body::Trickle { interval, count } => {
            for _ in 0..*count {
                if !send(b" ") {
                    break;
                }
                thread::sleep(*interval);
            }
        }
    }
    let _ = stream.flush();
}

/// A gzip member of `size` zero bytes: concatenated `n` times (gzip allows several members), it
/// decompresses to `n * size` bytes from about a thousandth of that on the wire.
pub fn gzip_zeros(size: usize) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(&vec![0; size]).expect("compress");
    encoder.finish().expect("compress")
}
