//! The rating chart: an SVG line of the rating after each game, drawn on the server.

use maud::{Markup, html};

const WIDTH: f64 = 600.0;
const HEIGHT: f64 = 220.0;
const PAD: f64 = 30.0;

/// The chart of `ratings` (oldest first), labelled `label` for screen readers; none for no games.
pub fn rating_chart(ratings: &[f64], label: &str) -> Option<Markup> {
    let points = chart_points(ratings)?;
    let (low, high) = bounds(ratings)?;
    let path = points
        .iter()
        .map(|(x, y)| format!("{x:.1},{y:.1}"))
        .collect::<Vec<_>>()
        .join(" ");
    Some(html! {
        svg class="chart" role="img" aria-label=(label) viewBox=(format!("0 0 {WIDTH} {HEIGHT}"))
            xmlns="http://www.w3.org/2000/svg" {
            title { (label) }
            line x1=(PAD) y1=(PAD) x2=(PAD) y2=(HEIGHT - PAD) stroke="#555" {}
            line x1=(PAD) y1=(HEIGHT - PAD) x2=(WIDTH - PAD) y2=(HEIGHT - PAD) stroke="#555" {}
            text x="2" y=(PAD) font-size="11" fill="#222" { (format!("{high:.1}")) }
            text x="2" y=(HEIGHT - PAD) font-size="11" fill="#222" { (format!("{low:.1}")) }
            polyline points=(path) fill="none" stroke="#0b5394" stroke-width="2" {}
            @for (x, y) in &points {
                circle cx=(format!("{x:.1}")) cy=(format!("{y:.1}")) r="3" fill="#0b5394" {}
            }
        }
    })
}

/// The lowest and highest value shown: the ratings', one apart at least.
fn bounds(ratings: &[f64]) -> Option<(f64, f64)> {
    let low = ratings.iter().copied().reduce(f64::min)?;
    let high = ratings.iter().copied().reduce(f64::max)?;
    if high - low < 1.0 {
        Some((low - 0.5, high + 0.5))
    } else {
        Some((low, high))
    }
}

/// Where each rating is drawn: evenly spaced left to right, higher ratings higher up.
pub fn chart_points(ratings: &[f64]) -> Option<Vec<(f64, f64)>> {
    let (low, high) = bounds(ratings)?;
    let n = ratings.len();
    let step = if n > 1 {
        (WIDTH - 2.0 * PAD) / (n - 1) as f64
    } else {
        0.0
    };
    Some(
        ratings
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let x = PAD + step * i as f64;
                let y = HEIGHT - PAD - (r - low) / (high - low) * (HEIGHT - 2.0 * PAD);
                (x, y)
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rising_rating_is_drawn_rising_left_to_right() {
        let points = chart_points(&[1.0, 3.0, 2.0, 5.0]).unwrap();
        assert_eq!(points.len(), 4);
        assert!(points.windows(2).all(|w| w[0].0 < w[1].0), "{points:?}");
        // SVG's y grows downwards: the best rating is the highest point, the worst the lowest.
        assert_eq!(points[3].1, PAD);
        assert_eq!(points[0].1, HEIGHT - PAD);
        assert!(points[1].1 < points[2].1);
    }

    #[test]
    fn no_game_draws_no_chart_and_one_game_stays_inside() {
        assert!(rating_chart(&[], "x").is_none());
        let points = chart_points(&[4.2]).unwrap();
        let (x, y) = points[0];
        assert!((PAD..=WIDTH - PAD).contains(&x) && (PAD..=HEIGHT - PAD).contains(&y));
        let svg = rating_chart(&[4.2, 4.2], "Rating").unwrap().into_string();
        assert!(
            svg.starts_with("<svg") && svg.contains("<title>Rating</title>"),
            "{svg}"
        );
    }
}
