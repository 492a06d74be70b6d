//! The pages' languages: English, Spanish and Chinese (Simplified). A visitor's language is the
//! one the switcher remembered (cookie `lang`), else the best of `Accept-Language`, else English.
//! The rules' terms follow the federation's rule documents in each language; players' and events'
//! names are never translated. Numbers and dates are written the locale's way.

use chrono::{Datelike, NaiveDate};

mod en;
mod es;
mod rules;
mod words;
mod zh;

pub use en::EN;
pub use es::ES;
pub use rules::rule_message;
pub use words::Words;
pub use zh::ZH;

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

    /// A wait of `seconds`, as a person says it: "4 seconds", "1 minute 4 seconds";
    /// "4 segundos", "1 minuto y 4 segundos"; "4秒", "1分4秒".
    pub fn wait(self, seconds: u64) -> String {
        let (minutes, seconds) = (seconds / 60, seconds % 60);
        let unit = |n: u64, one: &str, many: &str| {
            let n_text = self.int(n);
            if n == 1 {
                format!("{n_text} {one}")
            } else {
                format!("{n_text} {many}")
            }
        };
        match self {
            Lang::Zh => match (minutes, seconds) {
                (0, s) => format!("{s}秒"),
                (m, 0) => format!("{m}分钟"),
                (m, s) => format!("{m}分{s}秒"),
            },
            Lang::En | Lang::Es => {
                let (second, seconds_word, minute, minutes_word, and) = if self == Lang::En {
                    ("second", "seconds", "minute", "minutes", " ")
                } else {
                    ("segundo", "segundos", "minuto", "minutos", " y ")
                };
                match (minutes, seconds) {
                    (0, s) => unit(s, second, seconds_word),
                    (m, 0) => unit(m, minute, minutes_word),
                    (m, s) => format!(
                        "{}{and}{}",
                        unit(m, minute, minutes_word),
                        unit(s, second, seconds_word)
                    ),
                }
            }
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

    /// "Round 2", "Ronda 2", "第 2 轮".
    pub fn round_n(self, n: u32) -> String {
        self.words().round_n.replace("{n}", &self.int(u64::from(n)))
    }

    /// "Table 3", "Mesa 3", "第 3 桌".
    pub fn table_n(self, n: u32) -> String {
        self.words().table_n.replace("{n}", &self.int(u64::from(n)))
    }

    /// "5 games", "5 partidas", "5 局".
    pub fn n_games(self, n: u32) -> String {
        self.words().n_games.replace("{n}", &self.int(u64::from(n)))
    }

    /// "plays 2nd", "juega 2.º", "第2个行动": the place in the play order.
    pub fn plays_nth(self, order: u32) -> String {
        self.words()
            .plays_nth
            .replace("{nth}", &self.ordinal(order))
    }
}

/// The words of `template` before and after its `{n}`, for a page that draws the number in an
/// element of its own ("截至第 " and " 轮" around the round a script keeps up to date).
pub fn around_n(template: &str) -> (&str, &str) {
    template.split_once("{n}").unwrap_or((template, ""))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_is_said_as_each_language_says_it() {
        assert_eq!(Lang::En.wait(1), "1 second");
        assert_eq!(Lang::En.wait(4), "4 seconds");
        assert_eq!(Lang::En.wait(64), "1 minute 4 seconds");
        assert_eq!(Lang::En.wait(900), "15 minutes");
        assert_eq!(Lang::Es.wait(1), "1 segundo");
        assert_eq!(Lang::Es.wait(64), "1 minuto y 4 segundos");
        assert_eq!(Lang::Zh.wait(4), "4秒");
        assert_eq!(Lang::Zh.wait(64), "1分4秒");
    }

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

    #[test]
    fn numbers_sit_where_each_language_puts_them() {
        assert_eq!(Lang::En.round_n(2), "Round 2");
        assert_eq!(Lang::Zh.round_n(2), "第 2 轮");
        assert_eq!(Lang::Es.table_n(3), "Mesa 3");
        assert_eq!(Lang::Zh.table_n(3), "第 3 桌");
        assert_eq!(Lang::Zh.plays_nth(1), "第1个行动");
        assert_eq!(Lang::En.plays_nth(2), "plays 2nd");
        assert_eq!(Lang::Zh.n_games(5), "5 局");
        assert_eq!(around_n(ZH.after_round_n), ("截至第 ", " 轮"));
        assert_eq!(around_n(EN.after_round_n), ("After round ", ""));
        // No Chinese text asks a question where it states a number.
        for (field, text) in [
            ("after_round_n", ZH.after_round_n),
            ("round", ZH.round),
            ("table", ZH.table),
            ("for_table", ZH.for_table),
        ] {
            assert!(!text.contains('几'), "{field}: {text}");
        }
    }
}
