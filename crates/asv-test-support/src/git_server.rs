//! Real git over HTTPS on 127.0.0.1: repositories built here with the installed `git`, served
//! by `git http-backend` (CGI) behind a small TLS server whose certificate a CA made in the
//! test signs; and a server that accepts connections and never answers.
//!
//! Nothing here needs more than the Rust toolchain and git: the certificates come from rcgen,
//! the TLS from rustls.

// Fixtures are built in the tests' own temporary directories, never in a user's tree.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use asv_model::source::ObjectFormat;

pub use crate::git::{IDENTITY, git};

/// One fixture repository: a work tree and the bare copy the server hands out.
pub struct Fixture {
    /// Holds the work tree and the served root; removed when dropped.
    pub dir: tempfile::TempDir,
    pub format: ObjectFormat,
    /// The first commit (lightweight tag `v1`, and tag `both`).
    pub first: String,
    /// The second and last commit on branch `trunk` (annotated tag `v2`, and branch `both`).
    pub second: String,
    /// The annotated tag object `v2`.
    pub tag_object: String,
}

/// The contract text of the fixture.
pub const TEXT: &[u8] = b"# TDD Contract\n\nWrite the test first.\n";
/// The conformance script (executable).
pub const SCRIPT: &[u8] = b"#!/bin/sh\nexit 0\n";
/// The README at the second commit.
pub const README: &[u8] = b"contracts, second edition\n";
/// The size of `big.bin`: one byte over the per-file limit.
pub const BIG: usize = 1024 * 1024 + 1;
/// The size of `noise.bin`, bytes that do not compress.
pub const NOISE: usize = 300 * 1024;

impl Fixture {
    /// A repository in `format`: branch `trunk` (the default), a lightweight tag `v1` on the
    /// first commit and an annotated tag `v2` on the second; a file, an executable, a symlink,
    /// a submodule entry, a file one byte over 1 MiB and 300 KiB of noise.
    pub fn new(format: ObjectFormat) -> Fixture {
        let dir = tempfile::Builder::new()
            .prefix("asv-git-fixture-")
            .tempdir()
            .expect("a fixture directory");
        let work = dir.path().join("work");
        let name = match format {
            ObjectFormat::Sha1 => "sha1",
            ObjectFormat::Sha256 => "sha256",
        };
        git(
            dir.path(),
            &[
                "init",
                "-q",
                "-b",
                "trunk",
                &format!("--object-format={name}"),
                "work",
            ],
        );
        let write = |path: &str, bytes: &[u8]| {
            let full = work.join(path);
            std::fs::create_dir_all(full.parent().expect("a parent")).expect("mkdir");
            std::fs::write(full, bytes).expect("write");
        };
        write("contracts/tdd-contract.md", TEXT);
        write("contracts/tdd-contract/conformance/check.sh", SCRIPT);
        write("README.md", b"contracts\n");
        write("big.bin", &vec![b'x'; BIG]);
        write("noise.bin", &noise(NOISE));
        std::os::unix::fs::symlink("contracts/tdd-contract.md", work.join("link.md"))
            .expect("symlink");
        git(&work, &["add", "-A"]);
        git(
            &work,
            &[
                "update-index",
                "--chmod=+x",
                "contracts/tdd-contract/conformance/check.sh",
            ],
        );
        git(&work, &["commit", "-q", "-m", "first"]);
        let first = git(&work, &["rev-parse", "HEAD"]);
        git(&work, &["tag", "v1"]);
        write("README.md", README);
        git(&work, &["add", "README.md"]);
        // A submodule entry with no submodule behind it: a gitlink to the first commit.
        git(
            &work,
            &[
                "update-index",
                "--add",
                "--cacheinfo",
                &format!("160000,{first},vendor/sub"),
            ],
        );
        git(&work, &["commit", "-q", "-m", "second"]);
        let second = git(&work, &["rev-parse", "HEAD"]);
        git(&work, &["tag", "-a", "-m", "second edition", "v2"]);
        // `both` is a branch at the second commit and a tag at the first.
        git(&work, &["branch", "both", &second]);
        git(&work, &["tag", "both", &first]);
        let tag_object = git(&work, &["rev-parse", "v2"]);
        let served = dir.path().join("served");
        std::fs::create_dir(&served).expect("mkdir served");
        git(
            &served,
            &["clone", "-q", "--bare", "../work", "contracts.git"],
        );
        let bare = served.join("contracts.git");
        git(&bare, &["config", "uploadpack.allowFilter", "true"]);
        Fixture {
            dir,
            format,
            first,
            second,
            tag_object,
        }
    }

    /// The directory the server serves (`GIT_PROJECT_ROOT`).
    pub fn served(&self) -> PathBuf {
        self.dir.path().join("served")
    }

    /// The bare repository served as `contracts.git`.
    pub fn bare(&self) -> PathBuf {
        self.served().join("contracts.git")
    }

    /// `git rev-parse <rev>:<path>` in the work tree.
    pub fn object(&self, rev: &str, path: &str) -> String {
        git(
            &self.dir.path().join("work"),
            &["rev-parse", &format!("{rev}:{path}")],
        )
    }
}

/// `len` bytes that do not compress (a fixed xorshift stream).
pub fn noise(len: usize) -> Vec<u8> {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state.to_le_bytes()[0]
        })
        .collect()
}

/// What the HTTPS server does with each request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    /// Hands the request to `git http-backend`.
    Serve,
    /// Answers 401 with a Basic challenge: git would have to ask for a password.
    Unauthorized,
    /// Serves only requests carrying [`USER`] and [`PASSWORD`]; 401 to the rest.
    Basic,
}

/// The user name [`Behaviour::Basic`] accepts.
pub const USER: &str = "fixture";
/// The password [`Behaviour::Basic`] accepts.
pub const PASSWORD: &str = "s3cret";
/// `Basic base64(USER:PASSWORD)`.
const AUTHORIZATION: &str = "Basic Zml4dHVyZTpzM2NyZXQ=";

/// A test CA and a certificate for 127.0.0.1 it signs; the CA bundle git is pointed at.
pub struct Tls {
    config: Arc<rustls::ServerConfig>,
    /// Holds the CA bundle.
    dir: tempfile::TempDir,
}

impl Default for Tls {
    fn default() -> Tls {
        Tls::new()
    }
}

impl Tls {
    pub fn new() -> Tls {
        use rcgen::{
            BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose,
        };
        let ca_key = KeyPair::generate().expect("a CA key");
        let mut ca = CertificateParams::new(Vec::<String>::new()).expect("CA params");
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.distinguished_name
            .push(DnType::CommonName, "agentic-skill-vendor test CA");
        ca.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let ca_cert = ca.self_signed(&ca_key).expect("a CA certificate");
        let issuer = Issuer::new(ca, ca_key);
        let key = KeyPair::generate().expect("a server key");
        let mut leaf = CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()])
            .expect("server params");
        leaf.distinguished_name
            .push(DnType::CommonName, "127.0.0.1");
        let cert = leaf.signed_by(&key, &issuer).expect("a server certificate");

        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("protocol versions")
            .with_no_client_auth()
            .with_single_cert(
                vec![cert.der().clone(), ca_cert.der().clone()],
                rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
            )
            .expect("a server config");

        // The machine's own CAs (GIT_SSL_CAINFO / SSL_CERT_FILE may point git there and
        // override any configuration), plus this CA.
        let mut bundle = Vec::new();
        for name in ["GIT_SSL_CAINFO", "SSL_CERT_FILE"] {
            if let Some(path) = std::env::var_os(name)
                && let Ok(bytes) = std::fs::read(&path)
            {
                bundle.extend_from_slice(&bytes);
                bundle.push(b'\n');
                break;
            }
        }
        bundle.extend_from_slice(ca_cert.pem().as_bytes());
        let dir = tempfile::Builder::new()
            .prefix("asv-git-ca-")
            .tempdir()
            .expect("a CA directory");
        std::fs::write(dir.path().join("bundle.pem"), bundle).expect("write the bundle");
        Tls {
            config: Arc::new(config),
            dir,
        }
    }

    pub fn bundle(&self) -> PathBuf {
        self.dir.path().join("bundle.pem")
    }

    /// What git needs to trust the server and to ignore this machine's configuration and
    /// proxies.
    pub fn env(&self) -> Vec<(OsString, OsString)> {
        vec![
            ("GIT_SSL_CAINFO".into(), self.bundle().into()),
            ("GIT_CONFIG_GLOBAL".into(), "/dev/null".into()),
            ("GIT_CONFIG_NOSYSTEM".into(), "1".into()),
            ("NO_PROXY".into(), "127.0.0.1,localhost".into()),
            ("no_proxy".into(), "127.0.0.1,localhost".into()),
        ]
    }
}

/// A listener on 127.0.0.1 run by one thread until dropped.
struct Listener {
    port: u16,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Listener {
    fn start(mut on_connection: impl FnMut(TcpStream) + Send + 'static) -> Listener {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().expect("an address").port();
        listener.set_nonblocking(true).expect("non-blocking");
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            while !flag.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        stream.set_nonblocking(false).expect("blocking");
                        on_connection(stream);
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        Listener {
            port,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// `git http-backend` behind TLS on 127.0.0.1.
pub struct Https {
    listener: Listener,
}

impl Https {
    pub fn start(tls: &Tls, root: &Path, behaviour: Behaviour) -> Https {
        let config = Arc::clone(&tls.config);
        let root = root.to_owned();
        let listener = Listener::start(move |stream| {
            let config = Arc::clone(&config);
            let root = root.clone();
            std::thread::spawn(move || {
                let _ = serve(stream, config, &root, behaviour);
            });
        });
        Https { listener }
    }

    /// `https://127.0.0.1:<port>/<name>`.
    pub fn url(&self, name: &str) -> String {
        format!("https://127.0.0.1:{}/{name}", self.listener.port)
    }
}

/// A server that takes every connection and never says a word.
pub struct Silent {
    listener: Listener,
    held: Arc<std::sync::Mutex<Vec<TcpStream>>>,
}

impl Silent {
    pub fn start() -> Silent {
        let held = Arc::new(std::sync::Mutex::new(Vec::new()));
        let keep = Arc::clone(&held);
        let listener = Listener::start(move |stream| {
            keep.lock().expect("not poisoned").push(stream);
        });
        Silent { listener, held }
    }

    pub fn url(&self, name: &str) -> String {
        format!("https://127.0.0.1:{}/{name}", self.listener.port)
    }

    /// How many connections were taken.
    pub fn connections(&self) -> usize {
        self.held.lock().expect("not poisoned").len()
    }
}

/// One HTTPS connection: one request, one answer, then close.
fn serve(
    stream: TcpStream,
    config: Arc<rustls::ServerConfig>,
    root: &Path,
    behaviour: Behaviour,
) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let connection = rustls::ServerConnection::new(config).map_err(std::io::Error::other)?;
    let mut reader = BufReader::new(rustls::StreamOwned::new(connection, stream));

    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (method, target) = (
        parts.next().unwrap_or_default().to_owned(),
        parts.next().unwrap_or_default().to_owned(),
    );
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header)?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let header = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    let mut body = Vec::new();
    if header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size)?;
            let size = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
                .map_err(std::io::Error::other)?;
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk)?;
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else if let Some(len) = header("content-length") {
        let len: usize = len.parse().map_err(std::io::Error::other)?;
        body.resize(len, 0);
        reader.read_exact(&mut body)?;
    }

    let refused = match behaviour {
        Behaviour::Serve => false,
        Behaviour::Unauthorized => true,
        Behaviour::Basic => header("authorization").as_deref() != Some(AUTHORIZATION),
    };
    let (status, extra, content) = if refused {
        (
            "401 Unauthorized".to_owned(),
            vec!["WWW-Authenticate: Basic realm=\"fixture\"".to_owned()],
            b"credentials needed\n".to_vec(),
        )
    } else {
        cgi(&method, &target, &headers, &body, root)?
    };
    let stream = reader.get_mut();
    let mut head = format!("HTTP/1.1 {status}\r\n");
    for line in extra {
        head.push_str(&line);
        head.push_str("\r\n");
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        content.len()
    ));
    stream.write_all(head.as_bytes())?;
    stream.write_all(&content)?;
    stream.flush()?;
    stream.conn.send_close_notify();
    let _ = stream.flush();
    Ok(())
}

/// Runs `git http-backend` for one request: (status, header lines, body).
fn cgi(
    method: &str,
    target: &str,
    headers: &[(String, String)],
    body: &[u8],
    root: &Path,
) -> std::io::Result<(String, Vec<String>, Vec<u8>)> {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let header = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let mut child = Command::new("git")
        .arg("http-backend")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_PROJECT_ROOT", root)
        .env("GIT_HTTP_EXPORT_ALL", "1")
        .env("REQUEST_METHOD", method)
        .env("PATH_INFO", path)
        .env("QUERY_STRING", query)
        .env("CONTENT_TYPE", header("content-type"))
        .env("CONTENT_LENGTH", body.len().to_string())
        .env("HTTP_CONTENT_ENCODING", header("content-encoding"))
        .env("HTTP_GIT_PROTOCOL", header("git-protocol"))
        .env("REMOTE_ADDR", "127.0.0.1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let mut stdin = child.stdin.take().expect("stdin");
    let body = body.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&body);
    });
    let out = child.wait_with_output()?;
    let _ = writer.join();
    let raw = out.stdout;
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| (i, 4))
        .or_else(|| raw.windows(2).position(|w| w == b"\n\n").map(|i| (i, 2)));
    let Some((at, skip)) = split else {
        return Ok((
            "500 Internal Server Error".to_owned(),
            Vec::new(),
            Vec::new(),
        ));
    };
    let head = String::from_utf8_lossy(&raw[..at]).into_owned();
    let content = raw[at + skip..].to_vec();
    let mut status = "200 OK".to_owned();
    let mut extra = Vec::new();
    for line in head.lines() {
        let line = line.trim_end();
        match line.split_once(':') {
            Some((name, value)) if name.eq_ignore_ascii_case("status") => {
                status = value.trim().to_owned();
            }
            Some((name, _)) if name.eq_ignore_ascii_case("content-length") => {}
            Some(_) => extra.push(line.to_owned()),
            None => {}
        }
    }
    Ok((status, extra, content))
}
