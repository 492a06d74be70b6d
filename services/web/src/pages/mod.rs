//! The pages and their routes.

pub(crate) mod event;
mod home;
mod player;
mod ratings;
mod screen;
mod season;
mod sheets;
pub(crate) mod table;

use crate::i18n::Lang;
use crate::kept::KeptPage;
use crate::{PageError, PageResult, error_page, lang_of};
use actix_web::{HttpRequest, HttpResponse, web};
use catan_api::names::folded_name;
use catan_api::{EntryStatus, EventFormat, EventStatus, Stage};
use maud::Markup;
use std::collections::HashMap;
use std::sync::Arc;
use uuid::Uuid;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(wrap(home::page)))
        .route("/lang", web::get().to(switch_language))
        .route("/health", web::get().to(health))
        .route("/static/style.css", web::get().to(style))
        .route("/static/live.js", web::get().to(script))
        .route("/static/screen.js", web::get().to(screen_script))
        .route("/static/console.js", web::get().to(console_script))
        .route("/ratings", web::get().to(wrap(ratings::page)))
        .route("/events/{id}", web::get().to(wrap(event::page)))
        .route(
            "/events/{id}/standings-table",
            web::get().to(wrap(event::standings_fragment)),
        )
        .route("/events/{id}/screen", web::get().to(wrap(screen::page)))
        .route(
            "/events/{id}/screen/standings-table",
            web::get().to(wrap(screen::standings_fragment)),
        )
        .route(
            "/events/{id}/standings.csv",
            web::get().to(wrap(event::csv)),
        )
        .route(
            "/events/{id}/rounds/{n}/sheets",
            web::get().to(wrap(sheets::page)),
        )
        .route(
            "/events/{id}/rounds/{n}/tables/{t}/board.svg",
            web::get().to(wrap(event::board)),
        )
        .route("/seasons/{id}", web::get().to(wrap(season::page)))
        .route(
            "/seasons/{id}/standings.csv",
            web::get().to(wrap(season::csv)),
        )
        .route("/players/{id}", web::get().to(wrap(player::page)));
}

/// What a page handler is given.
pub struct Ctx {
    pub req: HttpRequest,
    pub lang: Lang,
    pub api: catan_api::ApiClient,
    pub state: web::Data<crate::State>,
    pub query: HashMap<String, String>,
}

impl Ctx {
    /// Every region, as cached for a moment.
    async fn regions(&self) -> catan_api::ClientResult<Arc<Vec<catan_api::Region>>> {
        self.state
            .cached("regions".into(), self.api.regions())
            .await
    }

    /// The `n`th path segment parameter as an id.
    fn id(&self, name: &str) -> Result<Uuid, PageError> {
        self.req
            .match_info()
            .get(name)
            .and_then(|v| Uuid::parse_str(v).ok())
            .ok_or(PageError::NotFound)
    }

    /// The path segment parameter `name` as a number (a round's, a table's).
    fn number(&self, name: &str) -> Result<u32, PageError> {
        self.req
            .match_info()
            .get(name)
            .and_then(|v| v.parse().ok())
            .ok_or(PageError::NotFound)
    }

    /// A query parameter, if given and not blank.
    fn param(&self, name: &str) -> Option<&str> {
        self.query
            .get(name)
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
    }

    fn html(&self, title: &str, body: Markup) -> HttpResponse {
        self.page_response()
            .content_type("text/html; charset=utf-8")
            .body(self.document(title, body))
    }

    /// The whole HTML document titled `title` around `body`.
    fn document(&self, title: &str, body: Markup) -> String {
        crate::layout::page(self.lang, &self.req, title, body).into_string()
    }

    /// A page's answer before its body: it differs by the visitor's language.
    fn page_response(&self) -> actix_web::HttpResponseBuilder {
        let mut response = HttpResponse::Ok();
        response
            .insert_header(("vary", "accept-language, cookie"))
            .insert_header(("content-language", self.lang.tag()));
        response
    }

    /// Where this page is kept as rendered: it is drawn for the language, the path and the query.
    fn kept_key(&self) -> String {
        let here = self.req.uri().path_and_query().map_or("/", |p| p.as_str());
        format!("{} {here}", self.lang.tag())
    }

    /// A kept page with its `ETag`, or `304` to a visitor who holds that version.
    fn kept_html<T>(&self, page: &KeptPage<T>) -> HttpResponse {
        catan_kit::conditional::respond(
            &self.req,
            self.page_response(),
            &page.etag,
            "text/html; charset=utf-8",
            page.html.clone(),
        )
    }
}

/// A page handler as an actix handler: builds its `Ctx` and renders its error in the page's frame.
fn wrap<F, Fut>(
    handler: F,
) -> impl Fn(
    HttpRequest,
    web::Data<crate::State>,
) -> std::pin::Pin<Box<dyn Future<Output = HttpResponse>>>
+ Clone
+ 'static
where
    F: Fn(Ctx) -> Fut + Clone + 'static,
    Fut: Future<Output = PageResult> + 'static,
{
    move |req: HttpRequest, state: web::Data<crate::State>| {
        let handler = handler.clone();
        Box::pin(async move {
            let query = web::Query::<HashMap<String, String>>::from_query(req.query_string())
                .map(web::Query::into_inner)
                .unwrap_or_default();
            // A link may carry the position of writes its page must show (`?position=`, as a
            // table app or the demo hands it out): every read of the page waits for them. Each
            // visit keeps its own.
            let position = query
                .get(catan_api::POSITION_QUERY)
                .and_then(|text| catan_api::Position::parse(text).ok())
                .unwrap_or_default();
            let ctx = Ctx {
                lang: lang_of(&req),
                api: state.api_for(&req).with_position(position),
                state: state.clone(),
                query,
                req: req.clone(),
            };
            match handler(ctx).await {
                Ok(response) => response,
                Err(e) => error_page(&req, &e),
            }
        })
    }
}

/// The switcher: remembers the language for a year and goes back to the page it was chosen on.
async fn switch_language(req: HttpRequest) -> HttpResponse {
    let query = web::Query::<HashMap<String, String>>::from_query(req.query_string())
        .map(web::Query::into_inner)
        .unwrap_or_default();
    let lang = query.get("to").and_then(|t| Lang::of_tag(t));
    // Only a path of this site: never another host (`//host` or `/\host`).
    let back = query
        .get("back")
        .filter(|b| b.starts_with('/') && !b.starts_with("//") && !b.starts_with("/\\"))
        .cloned()
        .unwrap_or_else(|| "/".into());
    let mut response = HttpResponse::SeeOther();
    response.insert_header(("location", back));
    if let Some(lang) = lang {
        response.insert_header((
            "set-cookie",
            format!(
                "lang={}; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly",
                lang.tag()
            ),
        ));
    }
    response.finish()
}

/// For the orchestrator's probes: the process serves, whatever the API's state (a page says
/// when the API cannot be read).
async fn health() -> HttpResponse {
    HttpResponse::Ok().json(serde_json::json!({"status": "ok"}))
}

async fn style() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/css; charset=utf-8")
        .insert_header(("cache-control", "public, max-age=300"))
        .body(include_str!("../../static/style.css"))
}

async fn script() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/javascript; charset=utf-8")
        .insert_header(("cache-control", "public, max-age=300"))
        .body(include_str!("../../static/live.js"))
}

async fn screen_script() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/javascript; charset=utf-8")
        .insert_header(("cache-control", "public, max-age=300"))
        .body(include_str!("../../static/screen.js"))
}

async fn console_script() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/javascript; charset=utf-8")
        .insert_header(("cache-control", "public, max-age=300"))
        .body(include_str!("../../static/console.js"))
}

/// A CSV download named `file`.
fn csv_response(file: &str, rows: &[Vec<String>]) -> HttpResponse {
    let mut body = String::new();
    for row in rows {
        let line: Vec<String> = row.iter().map(|cell| csv_cell(cell)).collect();
        body.push_str(&line.join(","));
        body.push_str("\r\n");
    }
    HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header((
            "content-disposition",
            format!("attachment; filename=\"{file}\""),
        ))
        .body(body)
}

/// One CSV field (RFC 4180), with a leading `=`, `+`, `-` or `@` of a text quoted away so a
/// spreadsheet never runs a player's name as a formula.
fn csv_cell(cell: &str) -> String {
    let risky = cell.starts_with(['=', '+', '@', '\t', '\r'])
        || (cell.starts_with('-') && cell.parse::<f64>().is_err());
    let cell = if risky {
        format!("'{cell}")
    } else {
        cell.to_string()
    };
    if cell.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", cell.replace('"', "\"\""))
    } else {
        cell
    }
}

fn status_word(lang: Lang, status: EventStatus) -> &'static str {
    let w = lang.words();
    match status {
        EventStatus::Planned => w.status_planned,
        EventStatus::Running => w.status_running,
        EventStatus::Finished => w.status_finished,
    }
}

fn format_word(lang: Lang, format: EventFormat) -> &'static str {
    match format {
        EventFormat::Classic => lang.words().classic,
        EventFormat::Partner => lang.words().partner,
    }
}

pub(crate) fn stage_word(lang: Lang, stage: Stage) -> &'static str {
    let w = lang.words();
    match stage {
        Stage::Qualifying => w.stage_qualifying,
        Stage::Semifinal => w.stage_semifinal,
        Stage::Final => w.stage_final,
        Stage::Swiss => w.stage_swiss,
    }
}

/// An entry's status in words.
pub(crate) fn entry_status_word(lang: Lang, status: EntryStatus) -> &'static str {
    let w = lang.words();
    match status {
        EntryStatus::Active => w.active,
        EntryStatus::Dropped => w.dropped,
        EntryStatus::Excluded => w.excluded,
    }
}

fn is_active(status: EntryStatus) -> bool {
    status == EntryStatus::Active
}

/// The days of an event: one, or first to last.
fn days(lang: Lang, from: chrono::NaiveDate, to: chrono::NaiveDate) -> String {
    if from == to {
        lang.date(from)
    } else {
        format!("{} – {}", lang.date(from), lang.date(to))
    }
}

/// Whether `name` holds `needle`, case and accents aside (folded as the federation folds names
/// everywhere: [`catan_api::names::folded_name`]).
pub(crate) fn name_matches(name: &str, needle: &str) -> bool {
    folded_name(name).contains(&folded_name(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_cells_are_quoted_and_never_formulas() {
        assert_eq!(csv_cell("Ada"), "Ada");
        assert_eq!(csv_cell("Lovelace, Ada"), "\"Lovelace, Ada\"");
        assert_eq!(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_cell("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(csv_cell("-1.50"), "-1.50");
        assert_eq!(csv_cell("-cmd"), "'-cmd");
    }

    #[test]
    fn names_match_case_and_accents_aside() {
        assert!(name_matches("José Peña", "jose pena"));
        assert!(name_matches("Ada Lovelace", "LOVE"));
        assert!(!name_matches("Ada Lovelace", "Bob"));
        assert!(name_matches("Zoë Ångström", "angstrom"));
    }
}
