//! A service's whole app (its routes and every middleware, exactly as its HTTP server runs them),
//! called within the same process without HTTP. The one-process suite's gateway dispatches to the
//! services it runs this way: a request then costs no loopback connection, no second parse of its
//! head, and no copy of its body (see BENCHMARKS.md, results ingestion).

use actix_http::Request;
use actix_service::IntoServiceFactory;
use actix_web::body::MessageBody;
use actix_web::dev::{AppConfig, Service, ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::{App, HttpResponse};
use futures_util::future::LocalBoxFuture;
use std::rc::Rc;
use std::sync::{Arc, Mutex, PoisonError};

/// A built app on one thread: each call answers one request, an error as the service's HTTP
/// server would have answered it.
pub type LocalService = Rc<dyn Fn(Request) -> LocalBoxFuture<'static, HttpResponse>>;

type Build = dyn FnMut() -> LocalBoxFuture<'static, std::io::Result<LocalService>> + Send;

/// What builds a service's app on the thread that will call it (an app is bound to its thread, as
/// each HTTP worker's is). Every app built shares the service's state: its pool, its caches, its
/// limits.
#[derive(Clone)]
pub struct LocalApp {
    build: Arc<Mutex<Box<Build>>>,
}

impl LocalApp {
    /// The app `make_app` makes, as the service's HTTP server makes one per worker.
    pub fn of<F, T, B>(make_app: F) -> LocalApp
    where
        F: Fn() -> App<T> + Send + 'static,
        T: ServiceFactory<
                ServiceRequest,
                Config = (),
                Response = ServiceResponse<B>,
                Error = actix_web::Error,
                InitError = (),
            > + 'static,
        B: MessageBody + 'static,
    {
        let build = move || -> LocalBoxFuture<'static, std::io::Result<LocalService>> {
            let factory = make_app().into_factory();
            Box::pin(async move {
                let service = Rc::new(
                    factory
                        .new_service(AppConfig::default())
                        .await
                        .map_err(|()| std::io::Error::other("the service's app did not start"))?,
                );
                let call: LocalService = Rc::new(move |request| {
                    let service = service.clone();
                    Box::pin(async move {
                        match service.call(request).await {
                            Ok(answer) => answer.map_into_boxed_body().into_parts().1,
                            Err(error) => error.error_response(),
                        }
                    })
                });
                Ok(call)
            })
        };
        LocalApp {
            build: Arc::new(Mutex::new(Box::new(build))),
        }
    }

    /// The app, built on this thread.
    pub async fn build(&self) -> std::io::Result<LocalService> {
        let building = (self.build.lock().unwrap_or_else(PoisonError::into_inner))();
        building.await
    }
}
