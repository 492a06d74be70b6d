//! The all-in-one launcher: runs the four services as four HTTP servers that call each other,
//! and one gateway that serves the whole v1 API on one base URL.

pub mod cli;
pub mod demo;
pub mod gateway;
pub mod openapi;
pub mod postgres;
pub mod processes;
pub mod replicated;
pub mod serve;
pub mod venue;

pub use gateway::Owner;

use catan_kit::Settings;
use catan_kit::server::{RunningServer, bind};
use catan_kit::settings::PeerUrls;
use secrecy::SecretString;
use std::net::SocketAddr;
use std::sync::Arc;

/// Applies every service's migrations to `database_url` without serving anything.
pub fn migrate_all(database_url: &str) -> anyhow::Result<()> {
    for service in [
        catan_registration::SERVICE,
        catan_pairing::SERVICE,
        catan_results::SERVICE,
        catan_ranking::SERVICE,
    ] {
        let pool = catan_kit::db::connect(database_url, service.name, 1)?;
        catan_kit::db::migrate(&pool, (service.migrations)())?;
    }
    Ok(())
}

/// The running suite.
pub struct Suite {
    /// Every service's settings, with the peers where the suite runs them.
    settings: Settings,
    addrs: [SocketAddr; 4],
    services: [Option<RunningServer>; 4],
    gateway: RunningServer,
    /// The services the gateway calls within this process, as they start and stop.
    local: Arc<gateway::LocalApps>,
    /// The web app (`services/web`), which the gateway serves outside `/v1/`.
    web: Option<RunningServer>,
}

/// `settings` with the secrets the suite's own parts share made up where none is configured.
pub(crate) fn with_internal_secrets(mut settings: Settings) -> Settings {
    if settings.webhooks.internal_key.is_none() {
        // Without a configured key, the suite makes one for its own services.
        settings.webhooks.internal_key = Some(SecretString::from(format!(
            "cik_{}",
            uuid::Uuid::new_v4().simple()
        )));
    }
    if settings.clients.proxy_secret.is_none() {
        // The gateway vouches for each client's address with a secret the services share.
        settings.clients.proxy_secret = Some(SecretString::from(format!(
            "cps_{}",
            uuid::Uuid::new_v4().simple()
        )));
    }
    settings
}

impl Suite {
    /// Starts the four services on free local ports with `settings`, and the gateway on
    /// `gateway_addr` (e.g. "127.0.0.1:8080"; "127.0.0.1:0" for any free port).
    pub async fn start(settings: Settings, gateway_addr: &str) -> anyhow::Result<Suite> {
        let mut settings = with_internal_secrets(settings);
        let listeners = [
            bind("127.0.0.1:0")?,
            bind("127.0.0.1:0")?,
            bind("127.0.0.1:0")?,
            bind("127.0.0.1:0")?,
        ];
        let addrs = [
            listeners[0].local_addr()?,
            listeners[1].local_addr()?,
            listeners[2].local_addr()?,
            listeners[3].local_addr()?,
        ];
        settings.peers = PeerUrls {
            registration: format!("http://{}", addrs[0]),
            pairing: format!("http://{}", addrs[1]),
            results: format!("http://{}", addrs[2]),
            ranking: format!("http://{}", addrs[3]),
        };
        // The web app reads the API through the gateway, and the gateway serves it.
        let web_listener = bind("127.0.0.1:0")?;
        let web_url = format!("http://{}", web_listener.local_addr()?);
        let peers = &settings.peers;
        let upstreams = gateway::Upstreams {
            registration: vec![peers.registration.clone()],
            pairing: vec![peers.pairing.clone()],
            results: vec![peers.results.clone()],
            ranking: vec![peers.ranking.clone()],
            web: Some(web_url),
        };
        let local = Arc::new(gateway::LocalApps::default());
        let mut suite = Suite {
            gateway: gateway::start_balanced(
                bind(gateway_addr)?,
                gateway::Balancer::with_local(upstreams, local.clone()),
                catan_kit::client::ProxyTrust::new(settings.clients.proxy_secret.clone()),
            )?,
            local,
            settings,
            addrs,
            services: [None, None, None, None],
            web: None,
        };
        // Registration first: it makes the signing key the others verify tokens with.
        for (owner, listener) in Owner::ALL.into_iter().zip(listeners) {
            suite.launch(owner, listener).await?;
        }
        // The web app is behind the gateway too: it takes the visitor's address the gateway
        // vouches for and passes it on to the API with the same secret.
        suite.web = Some(catan_web::start(
            web_listener,
            &suite.url(),
            catan_kit::client::ProxyTrust::new(suite.settings.clients.proxy_secret.clone()),
            catan_web::SessionKey::from_env(),
            suite.settings.public_url.clone(),
        )?);
        Ok(suite)
    }

    /// Starts `owner` on `listener`; the gateway calls it within this process from then on.
    async fn launch(
        &mut self,
        owner: Owner,
        listener: std::net::TcpListener,
    ) -> anyhow::Result<()> {
        let settings = self.settings.clone();
        let server = match owner {
            Owner::Registration => catan_registration::start(settings, listener).await,
            Owner::Pairing => catan_pairing::start(settings, listener).await,
            Owner::Results => catan_results::start(settings, listener).await,
            Owner::Ranking => catan_ranking::start(settings, listener).await,
        }?;
        if let Some(app) = server.local_app() {
            self.local.serve(owner, app.clone());
        }
        self.services[owner.index()] = Some(server);
        Ok(())
    }

    /// The base URL of the whole v1 API.
    pub fn url(&self) -> String {
        self.gateway.url()
    }

    /// The base URL of one service.
    pub fn service_url(&self, owner: Owner) -> String {
        format!("http://{}", self.addrs[owner.index()])
    }

    /// Stops one service (the others keep running).
    pub async fn stop_service(&mut self, owner: Owner) {
        self.local.withdraw(owner);
        if let Some(server) = self.services[owner.index()].take() {
            server.stop().await;
        }
    }

    /// Starts a stopped service again, on the address it had.
    pub async fn restart_service(&mut self, owner: Owner) -> anyhow::Result<()> {
        self.stop_service(owner).await;
        let listener = bind(&self.addrs[owner.index()].to_string())?;
        self.launch(owner, listener).await
    }

    pub async fn stop(mut self) {
        if let Some(web) = self.web.take() {
            web.stop().await;
        }
        for owner in Owner::ALL {
            self.stop_service(owner).await;
        }
        self.gateway.stop().await;
    }

    /// Runs until the process is told to stop (Ctrl-C or SIGTERM), then stops gracefully.
    pub async fn wait(self) -> anyhow::Result<()> {
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = terminate.recv() => {}
        }
        self.stop().await;
        Ok(())
    }
}
