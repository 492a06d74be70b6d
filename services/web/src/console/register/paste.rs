//! A pasted list of names (or a CSV file read into the box) read as CSV: fields may be quoted
//! (`"Smith, Ana"` is one name), a header row naming the name's column is skipped, cells are
//! separated by tabs (a spreadsheet's paste), semicolons or commas, whichever the first line
//! uses. Each line is checked as a name is kept; every bad line is named by its number.

use catan_api::names::{NameFault, checked_name};

/// Lines one form takes at most.
pub const LINES_AT_ONCE: usize = 200;

/// A line of the list: its number (from 1, as an editor counts), the team's name (partner
/// events), and the names of its players.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub number: usize,
    pub team: Option<String>,
    pub names: Vec<String>,
}

/// What is wrong with a line, to be said in the person's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// A name (or the team's name) that cannot be one.
    Name(NameFault),
    /// A partner event's line that is not "team, player, player".
    NotATeam,
    /// A quote opened and never closed, or text the CSV reader cannot take.
    Unreadable,
    /// More lines than a form takes: this is the first one left over.
    TooMany,
}

/// A fault and the line it is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    pub number: usize,
    pub fault: Fault,
}

/// The header cells that name a classic list's name column, in the console's languages.
const NAME_HEADERS: &[&str] = &[
    "name", "player", "nombre", "jugador", "姓名", "名字", "玩家",
];
/// The first header cell of a partner list.
const TEAM_HEADERS: &[&str] = &["team", "equipo", "队伍", "队名"];

/// The separator the first line uses: a tab, else a semicolon without commas, else a comma.
fn separator(text: &str) -> u8 {
    let first = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default();
    if first.contains('\t') {
        b'\t'
    } else if first.contains(';') && !first.contains(',') {
        b';'
    } else {
        b','
    }
}

/// A name as typed: quotes after a blank taken off (`; "Luis Gil"`), blanks inside it (a line
/// break in a quoted cell too) made one space, then checked as a name is kept.
fn name_of(cell: &str) -> Result<String, NameFault> {
    let cell = cell.trim();
    let cell = match cell.strip_prefix('"').and_then(|c| c.strip_suffix('"')) {
        Some(quoted) if !quoted.contains('"') => quoted,
        _ => cell,
    };
    checked_name(&cell.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// The number of the line (from 1) at byte `at` of `text`, blank lines there passed over (the
/// CSV reader's position of a record is where the record before it ended).
fn line_at(text: &str, at: usize) -> usize {
    let rest = text.get(at..).unwrap_or_default();
    let at = at + rest.len() - rest.trim_start_matches(['\r', '\n']).len();
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The line of a quote opened and never closed, if any (the CSV reader takes the rest of the
/// text into that cell without a word).
fn unclosed_quote(text: &str) -> Option<usize> {
    let mut opened = None;
    for (at, byte) in text.bytes().enumerate() {
        if byte == b'"' {
            opened = match opened {
                None => Some(at),
                Some(_) => None,
            };
        }
    }
    opened.map(|at| line_at(text, at))
}

/// The list's lines (`partner`: as "team, player, player"), or every bad line.
pub fn read(text: &str, partner: bool) -> Result<Vec<Line>, Vec<BadLine>> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(separator(text))
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let (mut lines, mut bad) = (Vec::new(), Vec::new());
    if let Some(number) = unclosed_quote(text) {
        return Err(vec![BadLine {
            number,
            fault: Fault::Unreadable,
        }]);
    }
    let mut name_column = 0;
    let mut first = true;
    for record in reader.records() {
        let record = match record {
            Ok(record) => record,
            Err(error) => {
                let number = error.position().map_or(lines.len() + bad.len() + 1, |p| {
                    line_at(text, usize::try_from(p.byte()).unwrap_or(usize::MAX))
                });
                bad.push(BadLine {
                    number,
                    fault: Fault::Unreadable,
                });
                break;
            }
        };
        let number = record.position().map_or(0, |p| {
            line_at(text, usize::try_from(p.byte()).unwrap_or(usize::MAX))
        });
        let cells: Vec<&str> = record.iter().collect();
        if cells.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        if std::mem::take(&mut first) {
            let header =
                |words: &[&str], cell: &str| words.iter().any(|w| cell.eq_ignore_ascii_case(w));
            if partner && header(TEAM_HEADERS, cells[0]) {
                continue;
            }
            if let (false, Some(column)) = (
                partner,
                cells.iter().position(|cell| header(NAME_HEADERS, cell)),
            ) {
                name_column = column;
                continue;
            }
        }
        if lines.len() == LINES_AT_ONCE {
            bad.push(BadLine {
                number,
                fault: Fault::TooMany,
            });
            break;
        }
        let line = if partner {
            team_line(&cells)
        } else {
            name_of(cells.get(name_column).copied().unwrap_or_default())
                .map(|name| (None, vec![name]))
                .map_err(Fault::Name)
        };
        match line {
            Ok((team, names)) => lines.push(Line {
                number,
                team,
                names,
            }),
            Err(fault) => bad.push(BadLine { number, fault }),
        }
    }
    if bad.is_empty() { Ok(lines) } else { Err(bad) }
}

/// A partner event's line: the team's name and its two players' names.
fn team_line(cells: &[&str]) -> Result<(Option<String>, Vec<String>), Fault> {
    let [team, first, second, ..] = cells else {
        return Err(Fault::NotATeam);
    };
    let names = [team, first, second].map(|cell| name_of(cell));
    match names {
        [Ok(team), Ok(first), Ok(second)] => Ok((Some(team), vec![first, second])),
        [Err(NameFault::Blank), ..]
        | [_, Err(NameFault::Blank), _]
        | [.., Err(NameFault::Blank)] => Err(Fault::NotATeam),
        [Err(fault), ..] | [_, Err(fault), _] | [.., Err(fault)] => Err(Fault::Name(fault)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<String> {
        read(text, false)
            .unwrap()
            .into_iter()
            .flat_map(|line| line.names)
            .collect()
    }

    #[test]
    fn a_quoted_field_is_one_name_commas_and_all() {
        assert_eq!(
            names("\"Smith, Ana\"\nPere Pons\n\"O\"\"Brien, Liam\"\n"),
            ["Smith, Ana", "Pere Pons", "O\"Brien, Liam"]
        );
    }

    #[test]
    fn a_header_row_names_the_column_of_the_names_and_is_skipped() {
        let csv = "region,Name,club\nNorth,\"Lovelace, Ada\",X\n\nSouth,  Grace   Hopper ,Y\r\n";
        assert_eq!(names(csv), ["Lovelace, Ada", "Grace Hopper"]);
        // Without a header, the first column.
        assert_eq!(names("Ada;North\nAlan;South"), ["Ada", "Alan"]);
        assert_eq!(names("Ada\t42\nAlan Turing\t7"), ["Ada", "Alan Turing"]);
    }

    #[test]
    fn lines_are_numbered_as_an_editor_counts_them() {
        let lines = read("Ada\n\nAlan\n\"Grace\nHopper\"\nLin", false).unwrap();
        let numbers: Vec<usize> = lines.iter().map(|l| l.number).collect();
        assert_eq!(numbers, [1, 3, 4, 6]);
        assert_eq!(
            lines[2].names,
            ["Grace Hopper"],
            "a quoted line break is a blank"
        );
    }

    #[test]
    fn every_bad_line_is_named_with_what_is_wrong() {
        let long = "a".repeat(250);
        let text = format!("Ada\n{long}\nAna\u{202E}Gil\nAlan");
        assert_eq!(
            read(&text, false),
            Err(vec![
                BadLine {
                    number: 2,
                    fault: Fault::Name(NameFault::TooLong { chars: 250 })
                },
                BadLine {
                    number: 3,
                    fault: Fault::Name(NameFault::Hiding('\u{202E}'))
                },
            ])
        );
        assert_eq!(
            read("Ada\n\"Alan", false),
            Err(vec![BadLine {
                number: 2,
                fault: Fault::Unreadable
            }])
        );
        let many: String = (0..=LINES_AT_ONCE).map(|i| format!("P{i}\n")).collect();
        assert_eq!(
            read(&many, false),
            Err(vec![BadLine {
                number: LINES_AT_ONCE + 1,
                fault: Fault::TooMany
            }])
        );
    }

    #[test]
    fn a_team_line_is_its_name_and_two_players_and_a_header_is_skipped() {
        assert_eq!(
            read(
                "team,player,player\n\"Tigres, Los\",Ana Pérez,Luis Gil\n",
                true
            ),
            Ok(vec![Line {
                number: 2,
                team: Some("Tigres, Los".into()),
                names: vec!["Ana Pérez".into(), "Luis Gil".into()],
            }])
        );
        assert_eq!(
            read("Los Tigres; Ana Pérez ; \"Luis Gil\"", true),
            Ok(vec![Line {
                number: 1,
                team: Some("Los Tigres".into()),
                names: vec!["Ana Pérez".into(), "Luis Gil".into()],
            }])
        );
        assert_eq!(
            read("Solo, Ana", true),
            Err(vec![BadLine {
                number: 1,
                fault: Fault::NotATeam
            }])
        );
    }
}
