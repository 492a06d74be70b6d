//! The all-in-one launcher: runs the four services as four HTTP servers that call each other,
//! and one gateway that serves the whole v1 API on one base URL.

pub mod demo;
pub mod gateway;
pub mod postgres;

pub use gateway::Owner;

use catan_kit::config::PeerUrls;
use catan_kit::server::{RunningServer, bind};
use std::net::SocketAddr;

#[derive(Debug, Clone)]
pub struct SuiteConfig {
    pub database_url: String,
    /// Where the gateway listens, e.g. "127.0.0.1:8080" ("127.0.0.1:0" for any free port).
    pub gateway_addr: String,
    /// The admin key to start from; generated and printed once when absent.
    pub admin_key: Option<String>,
    /// Webhook settings for every service (`WebhookSettings::from_env()`); without an internal
    /// key the suite makes one for its services.
    pub webhooks: catan_kit::webhooks::WebhookSettings,
}

/// Applies every service's migrations to `database_url` without serving anything.
pub fn migrate_all(database_url: &str) -> anyhow::Result<()> {
    for (schema, migrations) in [
        (catan_registration::SCHEMA, catan_registration::MIGRATIONS),
        (catan_pairing::SCHEMA, catan_pairing::MIGRATIONS),
        (catan_results::SCHEMA, catan_results::MIGRATIONS),
        (catan_ranking::SCHEMA, catan_ranking::MIGRATIONS),
    ] {
        let pool = catan_kit::db::connect(database_url, schema, 1)?;
        catan_kit::db::migrate(&pool, migrations)?;
    }
    Ok(())
}

/// The running suite.
pub struct Suite {
    config: SuiteConfig,
    peers: PeerUrls,
    addrs: [SocketAddr; 4],
    services: [Option<RunningServer>; 4],
    gateway: RunningServer,
}

const OWNERS: [Owner; 4] = [
    Owner::Registration,
    Owner::Pairing,
    Owner::Results,
    Owner::Ranking,
];

fn slot(owner: Owner) -> usize {
    OWNERS
        .iter()
        .position(|o| *o == owner)
        .expect("every owner has a slot")
}

impl Suite {
    /// Starts the four services on free local ports and the gateway on `config.gateway_addr`.
    pub async fn start(mut config: SuiteConfig) -> anyhow::Result<Suite> {
        if config.webhooks.internal_key.is_none() {
            config.webhooks.internal_key = Some(format!("cik_{}", uuid::Uuid::new_v4().simple()));
        }
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
        let peers = PeerUrls {
            registration: format!("http://{}", addrs[0]),
            pairing: format!("http://{}", addrs[1]),
            results: format!("http://{}", addrs[2]),
            ranking: format!("http://{}", addrs[3]),
        };
        let gateway_listener = bind(&config.gateway_addr)?;
        let mut suite = Suite {
            gateway: gateway::start(
                gateway_listener,
                gateway::Upstreams {
                    registration: peers.registration.clone(),
                    pairing: peers.pairing.clone(),
                    results: peers.results.clone(),
                    ranking: peers.ranking.clone(),
                },
            )?,
            config,
            peers,
            addrs,
            services: [None, None, None, None],
        };
        // Registration first: it makes the signing key the others verify tokens with.
        for (owner, listener) in OWNERS.into_iter().zip(listeners) {
            suite.services[slot(owner)] = Some(suite.launch(owner, listener).await?);
        }
        Ok(suite)
    }

    async fn launch(
        &self,
        owner: Owner,
        listener: std::net::TcpListener,
    ) -> anyhow::Result<RunningServer> {
        let database_url = self.config.database_url.clone();
        let peers = self.peers.clone();
        Ok(match owner {
            Owner::Registration => {
                let config = catan_registration::Config {
                    database_url,
                    admin_key: self.config.admin_key.clone(),
                    token_ttl: std::time::Duration::from_secs(
                        catan_kit::config::env_parse("TOKEN_TTL_SECONDS", 3600)
                            .map_err(anyhow::Error::msg)?,
                    ),
                    webhooks: self.config.webhooks.clone(),
                };
                catan_registration::start(config, listener).await?
            }
            Owner::Pairing => {
                catan_pairing::start(
                    catan_pairing::Config {
                        database_url,
                        peers,
                        webhooks: self.config.webhooks.clone(),
                    },
                    listener,
                )
                .await?
            }
            Owner::Results => {
                catan_results::start(
                    catan_results::Config {
                        database_url,
                        peers,
                        webhooks: self.config.webhooks.clone(),
                    },
                    listener,
                )
                .await?
            }
            Owner::Ranking => {
                catan_ranking::start(
                    catan_ranking::Config {
                        database_url,
                        peers,
                    },
                    listener,
                )
                .await?
            }
        })
    }

    /// The base URL of the whole v1 API.
    pub fn url(&self) -> String {
        self.gateway.url()
    }

    /// The base URL of one service.
    pub fn service_url(&self, owner: Owner) -> String {
        format!("http://{}", self.addrs[slot(owner)])
    }

    /// Stops one service (the others keep running).
    pub async fn stop_service(&mut self, owner: Owner) {
        if let Some(server) = self.services[slot(owner)].take() {
            server.stop().await;
        }
    }

    /// Starts a stopped service again, on the address it had.
    pub async fn restart_service(&mut self, owner: Owner) -> anyhow::Result<()> {
        self.stop_service(owner).await;
        let listener = bind(&self.addrs[slot(owner)].to_string())?;
        self.services[slot(owner)] = Some(self.launch(owner, listener).await?);
        Ok(())
    }

    pub async fn stop(mut self) {
        for owner in OWNERS {
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
