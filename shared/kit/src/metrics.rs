//! A service's metrics, served at `GET /metrics` in the Prometheus text format by the
//! [`prometheus`] crate. Every series is named `catan_...` and carries the constant label
//! `service` (one registry per service, so the suite's four in-process services each show only
//! their own):
//!
//! - `catan_http_requests_total{method, route, status}` and
//!   `catan_http_request_duration_seconds{method, route, status}` (a histogram): `route` is the
//!   route's pattern (`/v1/events/{event_id}/rounds`), never the path as sent, and
//!   `unmatched` for a request no route took, so the series stay few;
//! - `catan_db_pool_connections`, `catan_db_pool_idle_connections`,
//!   `catan_db_pool_max_connections`: the database pool, read at each scrape;
//! - for a service with an outbox: `catan_outbox_depth` (events waiting to be relayed),
//!   `catan_outbox_oldest_age_seconds` and `catan_outbox_dead` (dead letters), read at each scrape;
//! - ranking: `catan_feed_lag_seconds{feed}` (since the read model last caught up with the feed)
//!   and `catan_feed_failing{feed}`;
//! - registration: `catan_webhook_deliveries_total{outcome}` (`delivered`, `retry`, `failed`).
//!
//! `/metrics` is routed like `/health`, outside the OpenAPI document: the gateway and the Ingress
//! route only documented paths, so only the cluster's Prometheus reads it.

use crate::db::PgPool;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{HttpResponse, web};
use prometheus::{
    Gauge, GaugeVec, HistogramOpts, HistogramVec, IntCounterVec, IntGauge, IntGaugeVec, Opts,
    Registry, TextEncoder,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Work done at each scrape, off the async threads (it may read the database), to bring gauges
/// up to date.
pub type Probe = Arc<dyn Fn() -> Result<(), String> + Send + Sync>;

/// How long a probe waits for a database connection before the scrape goes on without it.
const PROBE_CONNECTION_TIMEOUT: Duration = Duration::from_secs(2);

/// Latency buckets, in seconds: from a cached read (a millisecond) to a 500-sheet batch.
const LATENCY_BUCKETS: [f64; 14] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// One service's registry and the series every service has. Cheap to clone.
#[derive(Clone)]
pub struct Metrics {
    inner: Arc<Inner>,
}

struct Inner {
    registry: Registry,
    requests: IntCounterVec,
    latency: HistogramVec,
    probes: Mutex<Vec<Probe>>,
}

impl Metrics {
    /// A registry for `service`, with the request series.
    pub fn new(service: &str) -> prometheus::Result<Metrics> {
        let labels = HashMap::from([("service".to_owned(), service.to_owned())]);
        let registry = Registry::new_custom(Some("catan".into()), Some(labels))?;
        let request_labels = ["method", "route", "status"];
        let requests = IntCounterVec::new(
            Opts::new(
                "http_requests_total",
                "HTTP requests answered, by route pattern and status",
            ),
            &request_labels,
        )?;
        let latency = HistogramVec::new(
            HistogramOpts::new(
                "http_request_duration_seconds",
                "Time to answer an HTTP request (to its headers), by route pattern and status",
            )
            .buckets(LATENCY_BUCKETS.to_vec()),
            &request_labels,
        )?;
        registry.register(Box::new(requests.clone()))?;
        registry.register(Box::new(latency.clone()))?;
        Ok(Metrics {
            inner: Arc::new(Inner {
                registry,
                requests,
                latency,
                probes: Mutex::new(Vec::new()),
            }),
        })
    }

    /// The registry, for a service's own series.
    pub fn registry(&self) -> &Registry {
        &self.inner.registry
    }

    /// Runs `probe` at each scrape, before the series are read.
    pub fn on_scrape(&self, probe: Probe) {
        if let Ok(mut probes) = self.inner.probes.lock() {
            probes.push(probe);
        }
    }

    /// Records one answered request.
    pub fn observe_request(&self, method: &str, route: &str, status: u16, took: Duration) {
        let status = status.to_string();
        let labels = [method, route, status.as_str()];
        self.inner.requests.with_label_values(&labels).inc();
        self.inner
            .latency
            .with_label_values(&labels)
            .observe(took.as_secs_f64());
    }

    /// Every series in the text format, after running the probes (blocking: call it off the
    /// async threads).
    pub fn render(&self) -> String {
        let probes = self
            .inner
            .probes
            .lock()
            .map(|probes| probes.clone())
            .unwrap_or_default();
        for probe in probes {
            if let Err(error) = probe() {
                tracing::warn!(%error, "a metrics probe failed; its series keep their last values");
            }
        }
        TextEncoder::new()
            .encode_to_string(&self.inner.registry.gather())
            .unwrap_or_else(|e| format!("# metrics could not be encoded: {e}\n"))
    }

    /// The pool's size, idle connections and maximum, read at each scrape.
    pub fn watch_pool(&self, pool: PgPool) -> prometheus::Result<()> {
        let connections = self.int_gauge(
            "db_pool_connections",
            "Connections the database pool holds now",
        )?;
        let idle = self.int_gauge(
            "db_pool_idle_connections",
            "Connections of the database pool that are idle now",
        )?;
        let max = self.int_gauge(
            "db_pool_max_connections",
            "Connections the database pool may hold",
        )?;
        self.on_scrape(Arc::new(move || {
            let state = pool.state();
            connections.set(i64::from(state.connections));
            idle.set(i64::from(state.idle_connections));
            max.set(i64::from(pool.max_size()));
            Ok(())
        }));
        Ok(())
    }

    /// The outbox's depth, the age of its oldest waiting event and its dead letters, read at each
    /// scrape (see [`crate::webhooks`]).
    pub fn watch_outbox(&self, pool: PgPool) -> prometheus::Result<()> {
        let depth = self.int_gauge(
            "outbox_depth",
            "Webhook events in the outbox waiting to be relayed to registration",
        )?;
        let oldest = Gauge::with_opts(Opts::new(
            "outbox_oldest_age_seconds",
            "Age of the oldest webhook event waiting in the outbox (0 when none waits)",
        ))?;
        self.inner.registry.register(Box::new(oldest.clone()))?;
        let dead = self.int_gauge(
            "outbox_dead",
            "Outbox events out of relays (dead letters), until the admin replays them",
        )?;
        self.on_scrape(Arc::new(move || {
            let mut conn = pool
                .get_timeout(PROBE_CONNECTION_TIMEOUT)
                .map_err(|e| e.to_string())?;
            let (waiting, age, dead_letters) =
                outbox_state(&mut conn).map_err(|e| e.to_string())?;
            depth.set(waiting);
            oldest.set(age);
            dead.set(dead_letters);
            Ok(())
        }));
        Ok(())
    }

    /// `catan_feed_lag_seconds{feed}` and `catan_feed_failing{feed}`, for the read model to set.
    pub fn feed_lag(&self) -> prometheus::Result<FeedLag> {
        let lag = GaugeVec::new(
            Opts::new(
                "feed_lag_seconds",
                "Seconds since the read model last caught up with the change feed",
            ),
            &["feed"],
        )?;
        let failing = IntGaugeVec::new(
            Opts::new(
                "feed_failing",
                "1 while the change feed's producer cannot be read, else 0",
            ),
            &["feed"],
        )?;
        self.inner.registry.register(Box::new(lag.clone()))?;
        self.inner.registry.register(Box::new(failing.clone()))?;
        Ok(FeedLag { lag, failing })
    }

    /// `catan_webhook_deliveries_total{outcome}`, for the deliverer to count its tries.
    pub fn webhook_deliveries(&self) -> prometheus::Result<WebhookDeliveries> {
        let tries = IntCounterVec::new(
            Opts::new(
                "webhook_deliveries_total",
                "Webhook delivery tries, by outcome: delivered, retry (another try later) or \
                 failed (its last try: a dead letter)",
            ),
            &["outcome"],
        )?;
        self.inner.registry.register(Box::new(tries.clone()))?;
        for outcome in DeliveryOutcome::ALL {
            tries.with_label_values(&[outcome.label()]);
        }
        Ok(WebhookDeliveries { tries })
    }

    fn int_gauge(&self, name: &str, help: &str) -> prometheus::Result<IntGauge> {
        let gauge = IntGauge::new(name, help)?;
        self.inner.registry.register(Box::new(gauge.clone()))?;
        Ok(gauge)
    }
}

fn outbox_state(conn: &mut diesel::PgConnection) -> Result<(i64, f64, i64), diesel::result::Error> {
    use diesel::prelude::*;
    use diesel::sql_types::{BigInt, Double};
    #[derive(QueryableByName)]
    struct Row {
        #[diesel(sql_type = BigInt)]
        waiting: i64,
        #[diesel(sql_type = Double)]
        oldest: f64,
        #[diesel(sql_type = BigInt)]
        dead: i64,
    }
    let row: Row = diesel::sql_query(
        "SELECT count(*) FILTER (WHERE dead_at IS NULL) AS waiting, \
         coalesce(extract(epoch FROM now() - min(occurred_at) FILTER (WHERE dead_at IS NULL)), 0)::float8 AS oldest, \
         count(*) FILTER (WHERE dead_at IS NOT NULL) AS dead \
         FROM outbox",
    )
    .get_result(conn)?;
    Ok((row.waiting, row.oldest.max(0.0), row.dead))
}

/// The read model's lag behind each change feed.
#[derive(Clone)]
pub struct FeedLag {
    lag: GaugeVec,
    failing: IntGaugeVec,
}

impl FeedLag {
    /// `feed` last caught up `lag` ago (None: never yet, shown as -1) and is failing or not.
    pub fn set(&self, feed: &str, lag: Option<Duration>, failing: bool) {
        self.lag
            .with_label_values(&[feed])
            .set(lag.map_or(-1.0, |lag| lag.as_secs_f64()));
        self.failing
            .with_label_values(&[feed])
            .set(i64::from(failing));
    }
}

/// What became of one webhook delivery try.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryOutcome {
    Delivered,
    Retry,
    Failed,
}

impl DeliveryOutcome {
    const ALL: [DeliveryOutcome; 3] = [
        DeliveryOutcome::Delivered,
        DeliveryOutcome::Retry,
        DeliveryOutcome::Failed,
    ];

    fn label(self) -> &'static str {
        match self {
            DeliveryOutcome::Delivered => "delivered",
            DeliveryOutcome::Retry => "retry",
            DeliveryOutcome::Failed => "failed",
        }
    }
}

/// Counts webhook delivery tries by outcome.
#[derive(Clone)]
pub struct WebhookDeliveries {
    tries: IntCounterVec,
}

impl WebhookDeliveries {
    pub fn count(&self, outcome: DeliveryOutcome) {
        self.tries.with_label_values(&[outcome.label()]).inc();
    }
}

/// `GET /metrics`: the service's series in the Prometheus text format.
pub(crate) async fn scrape(metrics: Option<web::Data<Metrics>>) -> HttpResponse {
    let Some(metrics) = metrics else {
        return HttpResponse::NotFound().finish();
    };
    let metrics = metrics.get_ref().clone();
    match tokio::task::spawn_blocking(move || metrics.render()).await {
        Ok(body) => HttpResponse::Ok()
            .content_type("text/plain; version=0.0.4; charset=utf-8")
            .body(body),
        Err(e) => {
            tracing::error!(error = %e, "the metrics could not be rendered");
            HttpResponse::InternalServerError().finish()
        }
    }
}

/// Middleware: counts and times every request by its route's pattern and its status.
pub(crate) async fn record(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let metrics = req.app_data::<web::Data<Metrics>>().cloned();
    let method = req.method().as_str().to_owned();
    let answer = next.call(req).await;
    if let Some(metrics) = metrics {
        let (route, status) = match &answer {
            Ok(response) => (
                response.request().match_pattern(),
                response.status().as_u16(),
            ),
            Err(error) => (None, error.as_response_error().status_code().as_u16()),
        };
        let route = route.unwrap_or_else(|| "unmatched".to_owned());
        metrics.observe_request(&method, &route, status, started.elapsed());
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_counted_by_route_pattern_and_status_with_latencies() {
        let metrics = Metrics::new("results").unwrap();
        let route = "/v1/events/{event_id}/rounds/{round}/tables/{table}/result";
        metrics.observe_request("PUT", route, 200, Duration::from_millis(3));
        metrics.observe_request("PUT", route, 200, Duration::from_millis(40));
        metrics.observe_request("PUT", route, 422, Duration::from_millis(2));
        let text = metrics.render();
        // The constant label follows the request's own.
        let labels = format!(r#"method="PUT",route="{route}",status="200",service="results""#);
        assert!(
            text.contains(&format!("catan_http_requests_total{{{labels}}} 2")),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "catan_http_request_duration_seconds_bucket{{{labels},le=\"0.005\"}} 1"
            )),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "catan_http_request_duration_seconds_count{{{labels}}} 2"
            )),
            "{text}"
        );
        assert!(
            text.contains(r#"status="422",service="results"} 1"#),
            "{text}"
        );
    }

    #[test]
    fn deliveries_show_every_outcome_from_the_start() {
        let metrics = Metrics::new("registration").unwrap();
        let deliveries = metrics.webhook_deliveries().unwrap();
        deliveries.count(DeliveryOutcome::Retry);
        let text = metrics.render();
        for (outcome, count) in [("delivered", 0), ("retry", 1), ("failed", 0)] {
            let series = format!(
                r#"catan_webhook_deliveries_total{{outcome="{outcome}",service="registration"}} {count}"#
            );
            assert!(text.contains(&series), "{series} in {text}");
        }
    }

    #[test]
    fn probes_run_at_each_scrape() {
        let metrics = Metrics::new("ranking").unwrap();
        let lag = metrics.feed_lag().unwrap();
        let scrapes = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let seen = scrapes.clone();
        metrics.on_scrape(Arc::new(move || {
            let n = seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
            lag.set("results", Some(Duration::from_secs(n)), n > 1);
            Ok(())
        }));
        assert!(
            metrics
                .render()
                .contains(r#"catan_feed_lag_seconds{feed="results",service="ranking"} 1"#)
        );
        let second = metrics.render();
        assert!(second.contains(r#"catan_feed_lag_seconds{feed="results",service="ranking"} 2"#));
        assert!(second.contains(r#"catan_feed_failing{feed="results",service="ranking"} 1"#));
    }
}
