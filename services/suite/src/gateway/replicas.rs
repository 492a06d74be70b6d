//! The replicas of one service, taken in turn. A replica that refuses a connection or fails its
//! health probe is skipped until it answers its probe again; a request goes to another replica
//! only when that cannot run it twice.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// How often each replica is probed (only services with more than one are), and how long a probe
/// may take.
pub(super) const HEALTH_INTERVAL: Duration = Duration::from_millis(500);
const HEALTH_TIMEOUT: Duration = Duration::from_secs(1);

/// The replicas of one service.
pub struct ReplicaSet {
    replicas: Vec<Replica>,
    /// Where the next request starts looking: round robin.
    next: AtomicUsize,
}

struct Replica {
    url: String,
    /// False after a refused connection or a failed probe, until a probe or a request succeeds.
    up: AtomicBool,
}

/// Whether a request that failed after it may have reached a replica can go to another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resend {
    /// It reads, or carries an `Idempotency-Key`: a second run answers as the first did.
    Safe,
    /// It may write: only a request no replica received (its connection was refused) goes on.
    OnlyUnsent,
}

impl Resend {
    /// How a request with `method` goes on, given whether it carries an `Idempotency-Key`.
    pub fn of(method: &actix_web::http::Method, idempotency_key: bool) -> Resend {
        use actix_web::http::Method;
        if idempotency_key || [Method::GET, Method::HEAD, Method::OPTIONS].contains(method) {
            Resend::Safe
        } else {
            Resend::OnlyUnsent
        }
    }
}

impl ReplicaSet {
    /// The replicas at `urls`, all taken to be up until one fails.
    pub fn new(urls: impl IntoIterator<Item = String>) -> ReplicaSet {
        ReplicaSet {
            replicas: urls
                .into_iter()
                .map(|url| Replica {
                    url: url.trim_end_matches('/').to_owned(),
                    up: AtomicBool::new(true),
                })
                .collect(),
            next: AtomicUsize::new(0),
        }
    }

    /// Whether there is more than one replica to choose from (and so any need to probe them).
    pub fn is_replicated(&self) -> bool {
        self.replicas.len() > 1
    }

    /// The replicas' base URLs and whether each is taken to be up.
    #[cfg(test)]
    fn states(&self) -> Vec<(&str, bool)> {
        self.replicas
            .iter()
            .map(|r| (r.url.as_str(), r.up.load(Ordering::Relaxed)))
            .collect()
    }

    /// The replicas in the order to try them: those up, from the next in turn, then those down
    /// (a last resort: a probe may be out of date).
    fn in_turn(&self) -> Vec<&Replica> {
        let turn = self.next.fetch_add(1, Ordering::Relaxed);
        let (mut up, mut down): (Vec<&Replica>, Vec<&Replica>) = self
            .replicas
            .iter()
            .partition(|r| r.up.load(Ordering::Relaxed));
        let up_count = up.len();
        let down_count = down.len();
        up.rotate_left(turn % up_count.max(1));
        down.rotate_left(turn % down_count.max(1));
        up.into_iter().chain(down).collect()
    }

    /// Sends the request `build` makes for a replica's base URL to the next replica in turn; when
    /// that fails, to the next, as far as `resend` allows. The first answer, whatever its status.
    pub async fn send(
        &self,
        resend: Resend,
        build: impl Fn(&str) -> reqwest::RequestBuilder,
    ) -> anyhow::Result<reqwest::Response> {
        let mut failure = anyhow::anyhow!("the service has no replica");
        for replica in self.in_turn() {
            match build(&replica.url).send().await {
                Ok(answer) => {
                    replica.up.store(true, Ordering::Relaxed);
                    return Ok(answer);
                }
                // A request that cannot be built (a header it cannot carry) is no replica's fault.
                Err(e) if e.is_builder() => return Err(e.into()),
                Err(e) => {
                    // A slow answer says nothing of the replica's health; anything else does.
                    if !e.is_timeout() {
                        replica.up.store(false, Ordering::Relaxed);
                    }
                    let unsent = e.is_connect();
                    failure = anyhow::Error::new(e).context(format!("{} failed", replica.url));
                    if !unsent && resend == Resend::OnlyUnsent {
                        break;
                    }
                    tracing::warn!(replica = %replica.url, error = %failure, "trying the next replica");
                }
            }
        }
        Err(failure)
    }

    /// Sends the request `build` makes to every replica at once (a notice each must have): the
    /// first success, else the last failure.
    pub async fn send_to_all(
        &self,
        build: impl Fn(&str) -> reqwest::RequestBuilder,
    ) -> anyhow::Result<reqwest::Response> {
        let sends = self.replicas.iter().map(|replica| {
            let request = build(&replica.url);
            async move {
                request
                    .send()
                    .await
                    .map_err(|e| anyhow::Error::new(e).context(format!("{} failed", replica.url)))
            }
        });
        let mut failure = anyhow::anyhow!("the service has no replica");
        let mut answered = None;
        for outcome in futures_util::future::join_all(sends).await {
            match outcome {
                Ok(answer) if answered.is_none() || answer.status().is_success() => {
                    answered = Some(answer);
                }
                Ok(_) => {}
                Err(e) => failure = e,
            }
        }
        answered.ok_or(failure)
    }

    /// Probes every replica's `/health` once, marking each up or down by its answer.
    pub async fn probe(&self, http: &reqwest::Client) {
        let probes = self.replicas.iter().map(|replica| async move {
            let answer = http
                .get(format!("{}/health", replica.url))
                .timeout(HEALTH_TIMEOUT)
                .send()
                .await;
            let healthy = answer.is_ok_and(|a| a.status().is_success());
            let was = replica.up.swap(healthy, Ordering::Relaxed);
            if was != healthy {
                tracing::warn!(replica = %replica.url, healthy, "replica health changed");
            }
        });
        futures_util::future::join_all(probes).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::http::Method;

    fn urls(set: &ReplicaSet) -> Vec<String> {
        set.in_turn().iter().map(|r| r.url.clone()).collect()
    }

    #[test]
    fn replicas_take_turns_and_one_down_is_tried_last() {
        let set = ReplicaSet::new(["http://a".into(), "http://b".into(), "http://c".into()]);
        let firsts: Vec<String> = (0..4).map(|_| urls(&set)[0].clone()).collect();
        assert_eq!(firsts, ["http://a", "http://b", "http://c", "http://a"]);
        set.replicas[1].up.store(false, Ordering::Relaxed);
        // The others share its turns.
        assert_eq!(urls(&set), ["http://a", "http://c", "http://b"]);
        assert_eq!(urls(&set), ["http://c", "http://a", "http://b"]);
        assert_eq!(set.states()[1], ("http://b", false));
    }

    #[test]
    fn only_reads_and_keyed_writes_may_be_sent_again() {
        assert_eq!(Resend::of(&Method::GET, false), Resend::Safe);
        assert_eq!(Resend::of(&Method::POST, true), Resend::Safe);
        assert_eq!(Resend::of(&Method::POST, false), Resend::OnlyUnsent);
        assert_eq!(Resend::of(&Method::PUT, false), Resend::OnlyUnsent);
        assert_eq!(Resend::of(&Method::DELETE, false), Resend::OnlyUnsent);
    }

    /// A port nothing listens on: bound, then let go.
    fn closed_port() -> u16 {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    }

    /// A server that reads one request, then closes the connection without answering (a replica
    /// killed while it held the request), once per connection; how many it received.
    async fn hanging_up() -> (String, std::sync::Arc<AtomicUsize>) {
        use tokio::io::AsyncReadExt;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let received = std::sync::Arc::new(AtomicUsize::new(0));
        let count = received.clone();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let mut buffer = [0u8; 4096];
                let _ = socket.read(&mut buffer).await;
                count.fetch_add(1, Ordering::SeqCst);
            }
        });
        (url, received)
    }

    async fn answering() -> (String, actix_web::dev::ServerHandle) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let server = actix_web::HttpServer::new(|| {
            actix_web::App::new().default_service(actix_web::web::to(|| async { "answered" }))
        })
        .workers(1)
        .listen(listener)
        .unwrap()
        .run();
        let handle = server.handle();
        tokio::spawn(server);
        (url, handle)
    }

    #[tokio::test]
    async fn a_refused_connection_goes_to_the_next_replica_and_marks_it_down() {
        let (live, server) = answering().await;
        let dead = format!("http://127.0.0.1:{}", closed_port());
        let set = ReplicaSet::new([dead.clone(), live.clone()]);
        let http = reqwest::Client::new();
        // A write without a key: no replica received it, so it is safe to send on.
        let answer = set
            .send(Resend::OnlyUnsent, |base| http.post(format!("{base}/x")))
            .await
            .unwrap();
        assert_eq!(answer.text().await.unwrap(), "answered");
        assert_eq!(
            set.states(),
            [(dead.as_str(), false), (live.as_str(), true)]
        );
        // Every later request goes to the live one first, in turn or not.
        for _ in 0..3 {
            assert_eq!(urls(&set)[0], live);
        }
        server.stop(false).await;
    }

    #[tokio::test]
    async fn a_write_that_may_have_run_is_not_sent_again_unless_it_is_safe() {
        let (hangs_up, received) = hanging_up().await;
        let (live, server) = answering().await;
        let http = reqwest::Client::new();
        let set = ReplicaSet::new([hangs_up.clone(), live.clone()]);
        let unkeyed = set
            .send(Resend::OnlyUnsent, |base| http.post(format!("{base}/x")))
            .await;
        assert!(unkeyed.is_err(), "a write without a key is not sent twice");
        assert_eq!(received.load(Ordering::SeqCst), 1);

        let set = ReplicaSet::new([hangs_up, live]);
        let keyed = set
            .send(Resend::Safe, |base| http.post(format!("{base}/x")))
            .await
            .unwrap();
        assert_eq!(keyed.text().await.unwrap(), "answered");
        assert_eq!(received.load(Ordering::SeqCst), 2);
        server.stop(false).await;
    }

    #[tokio::test]
    async fn a_request_that_cannot_be_built_marks_no_replica_down() {
        let (live, server) = answering().await;
        let set = ReplicaSet::new([live.clone()]);
        let http = reqwest::Client::new();
        let sent = set
            .send(Resend::Safe, |base| {
                http.get(format!("{base}/x"))
                    .header("x-bad", b"line\nbreak".as_slice())
            })
            .await;
        assert!(sent.is_err());
        assert_eq!(set.states(), [(live.as_str(), true)]);
        server.stop(false).await;
    }

    #[tokio::test]
    async fn a_probe_marks_a_replica_down_and_up_again() {
        let (live, server) = answering().await;
        let port = closed_port();
        let dead = format!("http://127.0.0.1:{port}");
        let set = ReplicaSet::new([live.clone(), dead.clone()]);
        let http = reqwest::Client::new();
        set.probe(&http).await;
        assert_eq!(
            set.states(),
            [(live.as_str(), true), (dead.as_str(), false)]
        );
        // The dead one comes back on its port.
        let listener = std::net::TcpListener::bind(("127.0.0.1", port)).unwrap();
        let back = actix_web::HttpServer::new(|| {
            actix_web::App::new().route("/health", actix_web::web::get().to(|| async { "ok" }))
        })
        .workers(1)
        .listen(listener)
        .unwrap()
        .run();
        let back_handle = back.handle();
        tokio::spawn(back);
        set.probe(&http).await;
        assert_eq!(set.states(), [(live.as_str(), true), (dead.as_str(), true)]);
        server.stop(false).await;
        back_handle.stop(false).await;
    }
}
