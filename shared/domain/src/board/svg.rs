//! A printable picture of a board: standalone SVG, no fonts or images required to be valid.

use super::{Board, HarbourKind, Hex, HexCoord, Resource, Terrain, Vertex};
use std::fmt::Write;

/// Circumradius of a hex in SVG user units (one unit is one pixel at the declared size).
const HEX_RADIUS: f64 = 60.0;
const VIEW_MIN_X: f64 = -340.0;
const VIEW_MIN_Y: f64 = -410.0;
const VIEW_WIDTH: f64 = 680.0;
const VIEW_HEIGHT: f64 = 780.0;

const SEA: &str = "#3f7fbf";
const RED_NUMBER: &str = "#c0392b";
const PLAIN_NUMBER: &str = "#222222";
const FONT: &str = "Helvetica, Arial, sans-serif";

fn terrain_colour(terrain: Terrain) -> &'static str {
    match terrain {
        Terrain::Forest => "#2e7d32",
        Terrain::Pasture => "#9ccc65",
        Terrain::Fields => "#f9d03f",
        Terrain::Hills => "#d9733b",
        Terrain::Mountains => "#8d99a6",
        Terrain::Desert => "#e8d8a8",
    }
}

fn terrain_name(terrain: Terrain) -> &'static str {
    match terrain {
        Terrain::Forest => "Forest",
        Terrain::Pasture => "Pasture",
        Terrain::Fields => "Fields",
        Terrain::Hills => "Hills",
        Terrain::Mountains => "Mountains",
        Terrain::Desert => "Desert",
    }
}

fn resource_name(resource: Resource) -> &'static str {
    match resource {
        Resource::Lumber => "lumber",
        Resource::Wool => "wool",
        Resource::Grain => "grain",
        Resource::Brick => "brick",
        Resource::Ore => "ore",
    }
}

fn resource_colour(resource: Resource) -> &'static str {
    let terrain = match resource {
        Resource::Lumber => Terrain::Forest,
        Resource::Wool => Terrain::Pasture,
        Resource::Grain => Terrain::Fields,
        Resource::Brick => Terrain::Hills,
        Resource::Ore => Terrain::Mountains,
    };
    terrain_colour(terrain)
}

/// Centre of a hex in SVG user units.
fn centre(coord: HexCoord) -> (f64, f64) {
    let x = 1.5 * HEX_RADIUS * f64::from(coord.q);
    let y = 3f64.sqrt() * HEX_RADIUS * (f64::from(coord.r) + f64::from(coord.q) / 2.0);
    (x, y)
}

fn vertex_position(vertex: Vertex) -> (f64, f64) {
    let points = vertex.hexes.map(centre);
    let x = points.iter().map(|p| p.0).sum::<f64>() / 3.0;
    let y = points.iter().map(|p| p.1).sum::<f64>() / 3.0;
    (x, y)
}

fn hexagon_points((cx, cy): (f64, f64), radius: f64) -> String {
    (0..6)
        .map(|corner| {
            let angle = f64::from(corner) * std::f64::consts::FRAC_PI_3;
            format!(
                "{:.1},{:.1}",
                cx + radius * angle.cos(),
                cy + radius * angle.sin()
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// An SVG picture of the board: hexes coloured and named by terrain, number tokens (6 and 8
/// in red, with the dots that show how often they roll), the nine harbours with their rates,
/// and the robber. Standalone and valid, with a viewBox and a size, to print or project.
pub fn render_svg(board: &Board) -> String {
    let mut svg = String::new();
    // Writing to a String cannot fail, so the results of write! are ignored below.
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="{VIEW_MIN_X} {VIEW_MIN_Y} {VIEW_WIDTH} {VIEW_HEIGHT}" width="{VIEW_WIDTH}" height="{VIEW_HEIGHT}" font-family="{FONT}">"#
    );
    let _ = writeln!(svg, "<title>Catan board, seed {}</title>", board.seed);
    let _ = writeln!(
        svg,
        r#"<rect x="{VIEW_MIN_X}" y="{VIEW_MIN_Y}" width="{VIEW_WIDTH}" height="{VIEW_HEIGHT}" fill="{SEA}"/>"#
    );
    let _ = writeln!(
        svg,
        r##"<text x="0" y="{:.1}" text-anchor="middle" font-size="22" fill="#ffffff">Board seed {}</text>"##,
        VIEW_MIN_Y + 32.0,
        board.seed
    );
    for harbour in &board.harbours {
        write_harbour(&mut svg, harbour.kind, harbour.sea, harbour.vertices);
    }
    for hex in &board.hexes {
        write_hex(&mut svg, hex);
    }
    write_robber(&mut svg, board);
    svg.push_str("</svg>\n");
    svg
}

fn write_hex(svg: &mut String, hex: &Hex) {
    let (cx, cy) = centre(hex.coord);
    let name = terrain_name(hex.terrain);
    let _ = writeln!(
        svg,
        r##"<polygon class="hex" points="{}" fill="{}" stroke="#f3e5c0" stroke-width="4"><title>{name}</title></polygon>"##,
        hexagon_points((cx, cy), HEX_RADIUS),
        terrain_colour(hex.terrain),
    );
    let _ = writeln!(
        svg,
        r##"<text class="terrain" x="{cx:.1}" y="{:.1}" text-anchor="middle" font-size="11" fill="#1b1b1b">{name}</text>"##,
        cy - 0.6 * HEX_RADIUS
    );
    let Some(token) = hex.token else { return };
    let colour = if token.is_red() {
        RED_NUMBER
    } else {
        PLAIN_NUMBER
    };
    let weight = if token.is_red() { "bold" } else { "normal" };
    let _ = writeln!(
        svg,
        r##"<circle class="token-disc" cx="{cx:.1}" cy="{cy:.1}" r="{:.1}" fill="#f7ecd2" stroke="#5a4630" stroke-width="2"/>"##,
        0.4 * HEX_RADIUS
    );
    let _ = writeln!(
        svg,
        r#"<text class="token" data-letter="{}" x="{cx:.1}" y="{:.1}" text-anchor="middle" font-size="22" font-weight="{weight}" fill="{colour}">{}</text>"#,
        token.letter,
        cy + 5.0,
        token.value
    );
    let pips = f64::from(token.pips());
    for pip in 0..token.pips() {
        let x = cx + (f64::from(pip) - (pips - 1.0) / 2.0) * 5.0;
        let _ = writeln!(
            svg,
            r#"<circle class="pip" cx="{x:.1}" cy="{:.1}" r="1.8" fill="{colour}"/>"#,
            cy + 14.0
        );
    }
}

fn write_harbour(svg: &mut String, kind: HarbourKind, sea: HexCoord, vertices: [Vertex; 2]) {
    let (cx, cy) = centre(sea);
    let (fill, label) = match kind {
        HarbourKind::Generic => ("#ffffff", "any".to_string()),
        HarbourKind::Special(resource) => (
            resource_colour(resource),
            resource_name(resource).to_string(),
        ),
    };
    let ratio = format!("{}:1", kind.ratio());
    let _ = writeln!(svg, r#"<g class="harbour" data-ratio="{ratio}">"#);
    for vertex in vertices {
        let (x, y) = vertex_position(vertex);
        let _ = writeln!(
            svg,
            r##"<line x1="{cx:.1}" y1="{cy:.1}" x2="{x:.1}" y2="{y:.1}" stroke="#7b5a32" stroke-width="6" stroke-linecap="round"/>"##
        );
    }
    let _ = writeln!(
        svg,
        r##"<circle cx="{cx:.1}" cy="{cy:.1}" r="{:.1}" fill="{fill}" stroke="#7b5a32" stroke-width="3"/>"##,
        0.4 * HEX_RADIUS
    );
    let _ = writeln!(
        svg,
        r##"<text x="{cx:.1}" y="{:.1}" text-anchor="middle" font-size="13" font-weight="bold" fill="#1b1b1b">{ratio}</text>"##,
        cy - 1.0
    );
    let _ = writeln!(
        svg,
        r##"<text x="{cx:.1}" y="{:.1}" text-anchor="middle" font-size="10" fill="#1b1b1b">{label}</text>"##,
        cy + 11.0
    );
    svg.push_str("</g>\n");
}

fn write_robber(svg: &mut String, board: &Board) {
    let (mut cx, cy) = centre(board.robber);
    // Off to the side when a token is under it, so the number stays readable.
    if board.hex(board.robber).is_some_and(|h| h.token.is_some()) {
        cx -= 0.55 * HEX_RADIUS;
    }
    let _ = writeln!(
        svg,
        r##"<g class="robber" fill="#333333" stroke="#111111" stroke-width="1.5"><title>Robber</title><ellipse cx="{cx:.1}" cy="{:.1}" rx="12" ry="16"/><circle cx="{cx:.1}" cy="{:.1}" r="8"/></g>"##,
        cy + 6.0,
        cy - 14.0
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::generate_board;
    use resvg::{tiny_skia, usvg};
    use usvg::roxmltree;

    fn rendered(svg: &str) -> tiny_skia::Pixmap {
        let tree = usvg::Tree::from_str(svg, &usvg::Options::default()).expect("valid SVG");
        let size = tree.size().to_int_size();
        let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height()).unwrap();
        resvg::render(
            &tree,
            tiny_skia::Transform::identity(),
            &mut pixmap.as_mut(),
        );
        pixmap
    }

    #[expect(
        clippy::cast_possible_truncation,
        reason = "the points tested lie inside the picture: rounded, they are pixel indices"
    )]
    fn pixel_at(pixmap: &tiny_skia::Pixmap, (x, y): (f64, f64)) -> [u8; 3] {
        let column = (x - VIEW_MIN_X).round() as u32;
        let row = (y - VIEW_MIN_Y).round() as u32;
        let pixel = pixmap.pixel(column, row).expect("inside the picture");
        [pixel.red(), pixel.green(), pixel.blue()]
    }

    fn rgb(hex_colour: &str) -> [u8; 3] {
        let channel = |at: usize| u8::from_str_radix(&hex_colour[at..at + 2], 16).unwrap();
        [channel(1), channel(3), channel(5)]
    }

    #[test]
    fn the_svg_has_a_view_box_and_a_size_and_renders_a_non_empty_image() {
        let svg = render_svg(&generate_board(5));
        let document = roxmltree::Document::parse(&svg).unwrap();
        let root = document.root_element();
        assert_eq!(root.tag_name().name(), "svg");
        assert_eq!(
            root.tag_name().namespace(),
            Some("http://www.w3.org/2000/svg")
        );
        assert!(root.attribute("viewBox").is_some());
        assert_eq!(root.attribute("width"), Some("680"));
        assert_eq!(root.attribute("height"), Some("780"));

        let pixmap = rendered(&svg);
        assert_eq!((pixmap.width(), pixmap.height()), (680, 780));
        let opaque = pixmap.pixels().iter().filter(|p| p.alpha() == 255).count();
        assert_eq!(
            opaque,
            pixmap.pixels().len(),
            "the sea covers the whole picture"
        );
        let distinct: std::collections::HashSet<[u8; 3]> = pixmap
            .pixels()
            .iter()
            .map(|p| [p.red(), p.green(), p.blue()])
            .collect();
        assert!(distinct.len() > 8, "more than a blank sheet");
    }

    #[test]
    fn each_hex_is_painted_in_its_terrain_colour() {
        let board = generate_board(21);
        let pixmap = rendered(&render_svg(&board));
        for hex in &board.hexes {
            let (cx, cy) = centre(hex.coord);
            // Left of the token, clear of labels and outline.
            let sample = pixel_at(&pixmap, (cx - 0.6 * HEX_RADIUS, cy));
            assert_eq!(sample, rgb(terrain_colour(hex.terrain)), "{:?}", hex.coord);
        }
    }

    #[test]
    fn every_token_number_is_written_with_6_and_8_in_red() {
        let board = generate_board(8);
        let svg = render_svg(&board);
        let document = roxmltree::Document::parse(&svg).unwrap();
        let mut written: Vec<(char, u8, String)> = document
            .descendants()
            .filter(|n| n.has_tag_name("text") && n.attribute("class") == Some("token"))
            .map(|n| {
                let letter = n.attribute("data-letter").unwrap().chars().next().unwrap();
                let value = n.text().unwrap().parse().unwrap();
                (letter, value, n.attribute("fill").unwrap().to_string())
            })
            .collect();
        written.sort();
        let expected: Vec<(char, u8)> = board
            .hexes_in_token_order()
            .iter()
            .filter_map(|h| h.token)
            .map(|t| (t.letter, t.value))
            .collect();
        let written_tokens: Vec<(char, u8)> = written.iter().map(|(l, v, _)| (*l, *v)).collect();
        assert_eq!(written_tokens, expected);
        for (letter, value, fill) in &written {
            let red = *value == 6 || *value == 8;
            assert_eq!(fill == RED_NUMBER, red, "token {letter} ({value})");
        }
        let pixmap = rendered(&svg);
        for hex in board.hexes.iter().filter(|h| h.token.is_some()) {
            let disc = pixel_at(&pixmap, centre(hex.coord));
            assert_ne!(disc, rgb(terrain_colour(hex.terrain)), "token disc drawn");
        }
    }

    #[test]
    fn harbours_and_the_robber_are_marked() {
        let board = generate_board(13);
        let svg = render_svg(&board);
        let document = roxmltree::Document::parse(&svg).unwrap();
        let ratios: Vec<&str> = document
            .descendants()
            .filter(|n| n.attribute("class") == Some("harbour"))
            .filter_map(|n| n.attribute("data-ratio"))
            .collect();
        assert_eq!(ratios.iter().filter(|r| **r == "3:1").count(), 4);
        assert_eq!(ratios.iter().filter(|r| **r == "2:1").count(), 5);

        let pixmap = rendered(&svg);
        for harbour in &board.harbours {
            let marker = pixel_at(&pixmap, centre(harbour.sea));
            assert_ne!(marker, rgb(SEA), "harbour at {:?} drawn", harbour.sea);
        }
        let (x, y) = centre(board.robber);
        assert_eq!(
            pixel_at(&pixmap, (x, y + 6.0)),
            rgb("#333333"),
            "robber on the desert"
        );
    }
}
