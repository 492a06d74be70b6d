//! The pages' languages: English, Spanish and Chinese (Simplified). A visitor's language is the
//! one the switcher remembered (cookie `lang`), else the best of `Accept-Language`, else English.
//! The rules' terms follow the federation's rule documents in each language; players' and events'
//! names are never translated. Numbers and dates are written the locale's way.

use chrono::{Datelike, NaiveDate};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    En,
    Es,
    Zh,
}

pub const LANGS: [Lang; 3] = [Lang::En, Lang::Es, Lang::Zh];

impl Lang {
    /// The BCP 47 tag of the `lang` attribute.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Es => "es",
            Lang::Zh => "zh-Hans",
        }
    }

    /// The language's own name, for the switcher.
    pub fn own_name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::Es => "Español",
            Lang::Zh => "中文",
        }
    }

    /// The language a tag names (`es-AR`, `zh-CN`, `zh-Hans`...), if one of ours.
    pub fn of_tag(tag: &str) -> Option<Lang> {
        let primary = tag.trim().split(['-', '_']).next()?.to_ascii_lowercase();
        match primary.as_str() {
            "en" => Some(Lang::En),
            "es" => Some(Lang::Es),
            // Traditional script is not served: Simplified is the closest we have.
            "zh" => Some(Lang::Zh),
            _ => None,
        }
    }

    /// The best of an `Accept-Language` header that we serve (highest q, first on a tie).
    pub fn negotiate(accept_language: &str) -> Option<Lang> {
        let mut best: Option<(f32, Lang)> = None;
        for part in accept_language.split(',') {
            let mut pieces = part.split(';');
            let tag = pieces.next().unwrap_or_default();
            let q = pieces
                .find_map(|p| p.trim().strip_prefix("q="))
                .and_then(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            if q <= 0.0 {
                continue;
            }
            if let Some(lang) = Lang::of_tag(tag)
                && best.is_none_or(|(b, _)| q > b)
            {
                best = Some((q, lang));
            }
        }
        best.map(|(_, lang)| lang)
    }

    pub fn words(self) -> &'static Words {
        match self {
            Lang::En => &EN,
            Lang::Es => &ES,
            Lang::Zh => &ZH,
        }
    }

    /// A whole number with the locale's grouping: 12,345 (en, zh), 12.345 (es; four digits stay
    /// ungrouped, as Spanish writes them).
    pub fn int(self, n: u64) -> String {
        let digits = n.to_string();
        let (sep, min) = match self {
            Lang::Es => ('.', 5),
            Lang::En | Lang::Zh => (',', 4),
        };
        if digits.len() < min {
            return digits;
        }
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(sep);
            }
            out.push(c);
        }
        out
    }

    /// A decimal the API wrote with a `.` (e.g. "85.86", "-1.5"), written the locale's way.
    pub fn decimal(self, text: &str) -> String {
        let (sign, unsigned) = match text.strip_prefix('-') {
            Some(rest) => ("-", rest),
            None => ("", text),
        };
        let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
        let Ok(whole_n) = whole.parse::<u64>() else {
            return text.to_string();
        };
        let mark = match self {
            Lang::Es => ",",
            Lang::En | Lang::Zh => ".",
        };
        let whole = self.int(whole_n);
        if fraction.is_empty() {
            format!("{sign}{whole}")
        } else {
            format!("{sign}{whole}{mark}{fraction}")
        }
    }

    /// A float to `places` decimals, the locale's way.
    pub fn float(self, x: f64, places: usize) -> String {
        self.decimal(&format!("{x:.places$}"))
    }

    /// A day: "6 March 2027", "6 de marzo de 2027", "2027年3月6日".
    pub fn date(self, day: NaiveDate) -> String {
        let month = usize::try_from(day.month0()).unwrap_or(0);
        match self {
            Lang::En => format!("{} {} {}", day.day(), EN_MONTHS[month], day.year()),
            Lang::Es => format!("{} de {} de {}", day.day(), ES_MONTHS[month], day.year()),
            Lang::Zh => format!("{}年{}月{}日", day.year(), day.month(), day.day()),
        }
    }

    /// An ordinal place: 1st, 1.º, 第1.
    pub fn ordinal(self, n: u32) -> String {
        match self {
            Lang::En => {
                let suffix = match (n % 10, n % 100) {
                    (_, 11..=13) => "th",
                    (1, _) => "st",
                    (2, _) => "nd",
                    (3, _) => "rd",
                    _ => "th",
                };
                format!("{n}{suffix}")
            }
            Lang::Es => format!("{n}.º"),
            Lang::Zh => format!("第{n}"),
        }
    }
}

const EN_MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const ES_MONTHS: [&str; 12] = [
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "octubre",
    "noviembre",
    "diciembre",
];

/// Every word the pages say, in one language.
pub struct Words {
    pub site: &'static str,
    pub home: &'static str,
    pub ratings: &'static str,
    pub language: &'static str,
    pub regions: &'static str,
    pub running_events: &'static str,
    pub upcoming_events: &'static str,
    pub current_seasons: &'static str,
    pub none: &'static str,
    pub event: &'static str,
    pub dates: &'static str,
    pub venue: &'static str,
    pub format: &'static str,
    pub classic: &'static str,
    pub partner: &'static str,
    pub status_planned: &'static str,
    pub status_running: &'static str,
    pub status_finished: &'static str,
    pub standings: &'static str,
    pub after_round: &'static str,
    pub live: &'static str,
    pub rank: &'static str,
    pub player: &'static str,
    pub team: &'static str,
    pub vp: &'static str,
    pub vp_share: &'static str,
    pub vp_against: &'static str,
    pub games: &'static str,
    pub wins: &'static str,
    pub points: &'static str,
    pub dropped: &'static str,
    pub download_csv: &'static str,
    pub find_table: &'static str,
    pub your_name: &'static str,
    pub find: &'static str,
    pub no_table_found: &'static str,
    pub rounds: &'static str,
    pub round: &'static str,
    pub table: &'static str,
    pub seat: &'static str,
    pub play_order: &'static str,
    pub plays: &'static str,
    pub byes: &'static str,
    pub print_sheets: &'static str,
    /// A table's board picture (partner events).
    pub board: &'static str,
    pub placements: &'static str,
    pub place: &'static str,
    pub stage: &'static str,
    pub stage_qualifying: &'static str,
    pub stage_semifinal: &'static str,
    pub stage_final: &'static str,
    pub stage_swiss: &'static str,
    pub placements_pending: &'static str,
    pub no_rounds: &'static str,
    pub season: &'static str,
    pub region: &'static str,
    pub all_regions: &'static str,
    pub filter: &'static str,
    pub events_counted: &'static str,
    pub best_place: &'static str,
    pub qualified: &'static str,
    pub qualification_line: &'static str,
    pub qualified_players: &'static str,
    pub via_event: &'static str,
    pub via_season: &'static str,
    pub passed_down_from: &'static str,
    pub profile: &'static str,
    pub rating: &'static str,
    pub trend: &'static str,
    pub events: &'static str,
    pub field_size: &'static str,
    pub seasons: &'static str,
    pub rating_chart: &'static str,
    pub rating_chart_empty: &'static str,
    pub head_to_head: &'static str,
    pub opponent: &'static str,
    pub compare: &'static str,
    pub ahead: &'static str,
    pub behind: &'static str,
    pub level: &'static str,
    pub choose_player: &'static str,
    pub min_games: &'static str,
    pub provisional: &'static str,
    pub leaderboard: &'static str,
    pub sheet: &'static str,
    pub settlements: &'static str,
    pub cities: &'static str,
    pub vp_cards: &'static str,
    pub longest_road: &'static str,
    pub largest_army: &'static str,
    pub total_vp: &'static str,
    pub winner: &'static str,
    pub signatures: &'static str,
    pub signature: &'static str,
    pub sheet_rule: &'static str,
    pub not_found: &'static str,
    pub unavailable: &'static str,
    pub back_home: &'static str,
}

pub static EN: Words = Words {
    site: "Catan league",
    home: "Home",
    ratings: "Ratings",
    language: "Language",
    regions: "Regions",
    running_events: "Running events",
    upcoming_events: "Upcoming events",
    current_seasons: "Current seasons",
    none: "None yet.",
    event: "Event",
    dates: "Dates",
    venue: "Venue",
    format: "Format",
    classic: "Classic",
    partner: "Partner (2 vs 2)",
    status_planned: "Upcoming",
    status_running: "Running",
    status_finished: "Finished",
    standings: "Standings",
    after_round: "After round",
    live: "Updates live",
    rank: "Rank",
    player: "Player",
    team: "Team",
    vp: "VP",
    vp_share: "VP share",
    vp_against: "VP against",
    games: "Games",
    wins: "Wins",
    points: "Points",
    dropped: "dropped",
    download_csv: "Download CSV",
    find_table: "Find my table",
    your_name: "Your name",
    find: "Find",
    no_table_found: "No seat found for that name.",
    rounds: "Rounds",
    round: "Round",
    table: "Table",
    seat: "Seat",
    play_order: "Play order",
    plays: "plays",
    byes: "Byes",
    print_sheets: "Printable sheets",
    board: "Board",
    placements: "Placements",
    place: "Place",
    stage: "Stage",
    stage_qualifying: "Qualifying",
    stage_semifinal: "Semi-final",
    stage_final: "Final",
    stage_swiss: "Swiss",
    placements_pending: "The placements are known once the event is over.",
    no_rounds: "No round drawn yet.",
    season: "Season",
    region: "Region",
    all_regions: "All regions",
    filter: "Filter",
    events_counted: "Events counted",
    best_place: "Best place",
    qualified: "Qualified",
    qualification_line: "Qualification line",
    qualified_players: "Who qualified",
    via_event: "event slot",
    via_season: "season table, rank",
    passed_down_from: "passed down from",
    profile: "Profile",
    rating: "Rating",
    trend: "Trend",
    events: "Events",
    field_size: "Field",
    seasons: "Seasons",
    rating_chart: "Rating game by game",
    rating_chart_empty: "No rated game yet.",
    head_to_head: "Head-to-head",
    opponent: "Opponent",
    compare: "Compare",
    ahead: "Ahead",
    behind: "Behind",
    level: "Level",
    choose_player: "Several players match; choose one:",
    min_games: "Minimum games",
    provisional: "provisional",
    leaderboard: "Leaderboard",
    sheet: "Results sheet",
    settlements: "Settlements",
    cities: "Cities",
    vp_cards: "VP cards",
    longest_road: "Longest road",
    largest_army: "Largest army",
    total_vp: "Total VP",
    winner: "Winner",
    signatures: "Signatures",
    signature: "Signature",
    sheet_rule: "The sheet counts once every player has signed it.",
    not_found: "Not found",
    unavailable: "The results service is unavailable; try again shortly.",
    back_home: "Back to the home page",
};

pub static ES: Words = Words {
    site: "Liga de Catan",
    home: "Inicio",
    ratings: "Puntuaciones",
    language: "Idioma",
    regions: "Regiones",
    running_events: "Torneos en curso",
    upcoming_events: "Próximos torneos",
    current_seasons: "Temporadas en curso",
    none: "Ninguno todavía.",
    event: "Torneo",
    dates: "Fechas",
    venue: "Sede",
    format: "Formato",
    classic: "Clásico",
    partner: "Parejas (2 contra 2)",
    status_planned: "Próximo",
    status_running: "En curso",
    status_finished: "Terminado",
    standings: "Clasificación",
    after_round: "Tras la ronda",
    live: "Se actualiza en directo",
    rank: "Puesto",
    player: "Jugador",
    team: "Equipo",
    vp: "PV",
    vp_share: "% de PV",
    vp_against: "PV en contra",
    games: "Partidas",
    wins: "Victorias",
    points: "Puntos",
    dropped: "retirado",
    download_csv: "Descargar CSV",
    find_table: "Busca tu mesa",
    your_name: "Tu nombre",
    find: "Buscar",
    no_table_found: "Ningún asiento con ese nombre.",
    rounds: "Rondas",
    round: "Ronda",
    table: "Mesa",
    seat: "Asiento",
    play_order: "Orden de juego",
    plays: "juega",
    byes: "Descansan",
    print_sheets: "Hojas para imprimir",
    board: "Tablero",
    placements: "Puestos finales",
    place: "Puesto",
    stage: "Fase",
    stage_qualifying: "Clasificatoria",
    stage_semifinal: "Semifinal",
    stage_final: "Final",
    stage_swiss: "Suizo",
    placements_pending: "Los puestos finales se conocen al acabar el torneo.",
    no_rounds: "Aún no se ha sorteado ninguna ronda.",
    season: "Temporada",
    region: "Región",
    all_regions: "Todas las regiones",
    filter: "Filtrar",
    events_counted: "Torneos contados",
    best_place: "Mejor puesto",
    qualified: "Clasificado",
    qualification_line: "Línea de clasificación",
    qualified_players: "Clasificados",
    via_event: "plaza de torneo",
    via_season: "tabla de temporada, puesto",
    passed_down_from: "plaza cedida por",
    profile: "Perfil",
    rating: "Puntuación",
    trend: "Tendencia",
    events: "Torneos",
    field_size: "Participantes",
    seasons: "Temporadas",
    rating_chart: "Puntuación partida a partida",
    rating_chart_empty: "Aún no hay partidas puntuadas.",
    head_to_head: "Cara a cara",
    opponent: "Rival",
    compare: "Comparar",
    ahead: "Por delante",
    behind: "Por detrás",
    level: "Empatados",
    choose_player: "Hay varios jugadores con ese nombre; elige uno:",
    min_games: "Partidas mínimas",
    provisional: "provisional",
    leaderboard: "Tabla",
    sheet: "Hoja de resultados",
    settlements: "Asentamientos",
    cities: "Ciudades",
    vp_cards: "Cartas de puntos de victoria",
    longest_road: "Camino más largo",
    largest_army: "Ejército más grande",
    total_vp: "PV totales",
    winner: "Ganador",
    signatures: "Firmas",
    signature: "Firma",
    sheet_rule: "La hoja vale cuando la han firmado todos los jugadores.",
    not_found: "No encontrado",
    unavailable: "El servicio de resultados no responde; inténtalo en un momento.",
    back_home: "Volver al inicio",
};

pub static ZH: Words = Words {
    site: "卡坦岛联赛",
    home: "首页",
    ratings: "等级分",
    language: "语言",
    regions: "地区",
    running_events: "进行中的比赛",
    upcoming_events: "即将举行的比赛",
    current_seasons: "当前赛季",
    none: "暂无。",
    event: "比赛",
    dates: "日期",
    venue: "地点",
    format: "赛制",
    classic: "个人赛",
    partner: "PARTNER赛（2对2）",
    status_planned: "即将开始",
    status_running: "进行中",
    status_finished: "已结束",
    standings: "排名",
    after_round: "截至第几轮",
    live: "实时更新",
    rank: "名次",
    player: "选手",
    team: "团队",
    vp: "胜利点",
    vp_share: "胜利点占比",
    vp_against: "对手胜利点",
    games: "局数",
    wins: "胜局",
    points: "积分",
    dropped: "已退出",
    download_csv: "下载 CSV",
    find_table: "查找我的桌号",
    your_name: "你的名字",
    find: "查找",
    no_table_found: "没有找到这个名字的座位。",
    rounds: "轮次",
    round: "轮",
    table: "桌",
    seat: "座位",
    play_order: "行动顺序",
    plays: "行动",
    byes: "轮空",
    print_sheets: "打印记分表",
    board: "版图",
    placements: "最终名次",
    place: "名次",
    stage: "阶段",
    stage_qualifying: "预选赛",
    stage_semifinal: "半决赛",
    stage_final: "决赛",
    stage_swiss: "瑞士轮",
    placements_pending: "比赛结束后公布最终名次。",
    no_rounds: "尚未抽签。",
    season: "赛季",
    region: "地区",
    all_regions: "全部地区",
    filter: "筛选",
    events_counted: "计分比赛",
    best_place: "最好名次",
    qualified: "已晋级",
    qualification_line: "晋级线",
    qualified_players: "晋级选手",
    via_event: "比赛名额",
    via_season: "赛季排名",
    passed_down_from: "名额顺延自",
    profile: "个人资料",
    rating: "等级分",
    trend: "走势",
    events: "比赛",
    field_size: "参赛人数",
    seasons: "赛季",
    rating_chart: "逐局等级分",
    rating_chart_empty: "尚无计分对局。",
    head_to_head: "交手记录",
    opponent: "对手",
    compare: "对比",
    ahead: "领先",
    behind: "落后",
    level: "持平",
    choose_player: "有多名选手符合，请选择：",
    min_games: "最少局数",
    provisional: "暂定",
    leaderboard: "排行榜",
    sheet: "记分表",
    settlements: "村落",
    cities: "城市",
    vp_cards: "胜利点卡",
    longest_road: "路王卡",
    largest_army: "兵王卡",
    total_vp: "胜利点合计",
    winner: "获胜者",
    signatures: "签名",
    signature: "签名",
    sheet_rule: "全部选手签名后记分表方才有效。",
    not_found: "未找到",
    unavailable: "成绩服务暂时无法访问，请稍后再试。",
    back_home: "返回首页",
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_language_picks_the_best_served_language() {
        assert_eq!(Lang::negotiate("es-AR,es;q=0.9,en;q=0.8"), Some(Lang::Es));
        assert_eq!(
            Lang::negotiate("fr-FR, zh-CN;q=0.8, en;q=0.5"),
            Some(Lang::Zh)
        );
        assert_eq!(Lang::negotiate("de, en;q=0.1, es;q=0.2"), Some(Lang::Es));
        assert_eq!(Lang::negotiate("zh-Hans"), Some(Lang::Zh));
        assert_eq!(Lang::negotiate("fr, es;q=0"), None);
        assert_eq!(Lang::negotiate(""), None);
    }

    #[test]
    fn numbers_follow_the_locale() {
        assert_eq!(Lang::En.int(1234567), "1,234,567");
        assert_eq!(Lang::Es.int(1234567), "1.234.567");
        assert_eq!(Lang::Es.int(2000), "2000");
        assert_eq!(Lang::En.int(2000), "2,000");
        assert_eq!(Lang::Es.decimal("85.86"), "85,86");
        assert_eq!(Lang::En.decimal("12345.50"), "12,345.50");
        assert_eq!(Lang::Zh.decimal("-1.5"), "-1.5");
        assert_eq!(Lang::Es.float(-1.25, 1), "-1,2");
        assert_eq!(Lang::Es.decimal("n/a"), "n/a");
    }

    #[test]
    fn dates_and_places_follow_the_locale() {
        let day = NaiveDate::from_ymd_opt(2027, 3, 6).unwrap();
        assert_eq!(Lang::En.date(day), "6 March 2027");
        assert_eq!(Lang::Es.date(day), "6 de marzo de 2027");
        assert_eq!(Lang::Zh.date(day), "2027年3月6日");
        assert_eq!(Lang::En.ordinal(1), "1st");
        assert_eq!(Lang::En.ordinal(12), "12th");
        assert_eq!(Lang::En.ordinal(23), "23rd");
        assert_eq!(Lang::Es.ordinal(2), "2.º");
    }
}
