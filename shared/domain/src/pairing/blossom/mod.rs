//! Maximum-weight matching on a complete graph with its optimal dual solution (the O(n³)
//! primal-dual blossom algorithm of Edmonds, in Gabow's form), so that a matching solved on part
//! of a larger graph can be proven optimal for all of it by checking the remaining edges'
//! reduced costs.
//!
//! Dual values are doubled so that they stay integral: for every edge u–v of weight w,
//! `vertex_dual[u] + vertex_dual[v] + Σ blossom duals over blossoms holding u and v ≥ 2w`,
//! with equality on matched edges.

use std::collections::VecDeque;

const INFINITY: i128 = i128::MAX / 4;

#[derive(Clone, Copy)]
struct Edge {
    u: usize,
    v: usize,
    w: i128,
}

/// A maximum-weight matching and the dual solution that proves it optimal.
pub(crate) struct DualMatching {
    /// `mate[i]`: the partner of vertex `i`, if matched.
    pub mate: Vec<Option<usize>>,
    /// Twice each vertex's dual.
    pub vertex_dual: Vec<i128>,
    /// Blossoms with a positive dual: their vertices and twice their dual. Only the tests read
    /// them: the Swiss blocks' edges between blocks never lie inside one blossom.
    #[cfg(test)]
    pub blossoms: Vec<(Vec<usize>, i128)>,
}

/// Vertex labels of the alternating forest.
const OUTER: i8 = 0;
const INNER: i8 = 1;
const FREE: i8 = -1;

/// The solver's working state. Vertices are 1-based (0 is "none"); `n + 1..=2n` are blossoms.
struct Solver {
    n: usize,
    n_x: usize,
    stride: usize,
    /// The edge matrix (blossom rows and columns hold their best member edge), split into
    /// endpoints and weights to keep it compact: `(2n + 1)²` entries.
    ends: Vec<(u32, u32)>,
    weights: Vec<i128>,
    lab: Vec<i128>,
    mate: Vec<usize>,
    slack: Vec<usize>,
    st: Vec<usize>,
    pa: Vec<usize>,
    flower_from: Vec<usize>,
    label: Vec<i8>,
    visited: Vec<u64>,
    visit_mark: u64,
    flower: Vec<Vec<usize>>,
    queue: VecDeque<usize>,
}

impl Solver {
    fn edge(&self, u: usize, v: usize) -> Edge {
        let index = u * self.stride + v;
        let (a, b) = self.ends[index];
        Edge {
            u: a as usize,
            v: b as usize,
            w: self.weights[index],
        }
    }

    #[expect(
        clippy::cast_possible_truncation,
        reason = "vertices are numbered up to 2n, and n is at most a Swiss block of \
                  LARGEST_BLOCK teams (the (2n + 1)² matrix could not exist near u32::MAX)"
    )]
    fn set_edge(&mut self, u: usize, v: usize, e: Edge) {
        let index = u * self.stride + v;
        self.ends[index] = (e.u as u32, e.v as u32);
        self.weights[index] = e.w;
    }

    fn delta(&self, e: Edge) -> i128 {
        self.lab[e.u] + self.lab[e.v] - 2 * self.edge(e.u, e.v).w
    }

    fn from(&self, b: usize, x: usize) -> usize {
        self.flower_from[b * (self.n + 1) + x]
    }

    fn update_slack(&mut self, u: usize, x: usize) {
        let s = self.slack[x];
        if s == 0 || self.delta(self.edge(u, x)) < self.delta(self.edge(s, x)) {
            self.slack[x] = u;
        }
    }

    fn set_slack(&mut self, x: usize) {
        self.slack[x] = 0;
        for u in 1..=self.n {
            if self.edge(u, x).w > 0 && self.st[u] != x && self.label[self.st[u]] == OUTER {
                self.update_slack(u, x);
            }
        }
    }

    fn queue_push(&mut self, x: usize) {
        if x <= self.n {
            self.queue.push_back(x);
        } else {
            for i in 0..self.flower[x].len() {
                self.queue_push(self.flower[x][i]);
            }
        }
    }

    fn set_st(&mut self, x: usize, b: usize) {
        self.st[x] = b;
        if x > self.n {
            for i in 0..self.flower[x].len() {
                self.set_st(self.flower[x][i], b);
            }
        }
    }

    #[expect(
        clippy::expect_used,
        reason = "callers pass the child of blossom b that holds an edge's end (`from`), and \
                  b's flower lists its children"
    )]
    fn get_pr(&mut self, b: usize, xr: usize) -> usize {
        let pr = self.flower[b]
            .iter()
            .position(|&x| x == xr)
            .expect("a member of the blossom");
        if pr % 2 == 1 {
            self.flower[b][1..].reverse();
            self.flower[b].len() - pr
        } else {
            pr
        }
    }

    fn set_match(&mut self, u: usize, v: usize) {
        let e = self.edge(u, v);
        self.mate[u] = e.v;
        if u <= self.n {
            return;
        }
        let xr = self.from(u, e.u);
        let pr = self.get_pr(u, xr);
        for i in 0..pr {
            let (a, b) = (self.flower[u][i], self.flower[u][i ^ 1]);
            self.set_match(a, b);
        }
        self.set_match(xr, v);
        self.flower[u].rotate_left(pr);
    }

    fn augment(&mut self, mut u: usize, mut v: usize) {
        loop {
            let xnv = self.st[self.mate[u]];
            self.set_match(u, v);
            if xnv == 0 {
                return;
            }
            let next = self.st[self.pa[xnv]];
            self.set_match(xnv, next);
            u = next;
            v = xnv;
        }
    }

    fn lowest_common_ancestor(&mut self, mut u: usize, mut v: usize) -> usize {
        self.visit_mark += 1;
        while u != 0 || v != 0 {
            if u != 0 {
                if self.visited[u] == self.visit_mark {
                    return u;
                }
                self.visited[u] = self.visit_mark;
                u = self.st[self.mate[u]];
                if u != 0 {
                    u = self.st[self.pa[u]];
                }
            }
            std::mem::swap(&mut u, &mut v);
        }
        0
    }

    fn add_blossom(&mut self, u: usize, lca: usize, v: usize) {
        let mut b = self.n + 1;
        while b <= self.n_x && self.st[b] != 0 {
            b += 1;
        }
        if b > self.n_x {
            self.n_x += 1;
        }
        self.lab[b] = 0;
        self.label[b] = OUTER;
        self.mate[b] = self.mate[lca];
        let mut flower = vec![lca];
        self.walk_to_blossom_base(&mut flower, u, lca);
        flower[1..].reverse();
        self.walk_to_blossom_base(&mut flower, v, lca);
        self.flower[b] = flower;
        self.set_st(b, b);
        for x in 1..=self.n_x {
            self.weights[b * self.stride + x] = 0;
            self.weights[x * self.stride + b] = 0;
        }
        for x in 1..=self.n {
            self.flower_from[b * (self.n + 1) + x] = 0;
        }
        for i in 0..self.flower[b].len() {
            let xs = self.flower[b][i];
            for x in 1..=self.n_x {
                let candidate = self.edge(xs, x);
                if self.edge(b, x).w == 0 || self.delta(candidate) < self.delta(self.edge(b, x)) {
                    self.set_edge(b, x, candidate);
                    self.set_edge(x, b, self.edge(x, xs));
                }
            }
            for x in 1..=self.n {
                if self.from(xs, x) != 0 {
                    self.flower_from[b * (self.n + 1) + x] = xs;
                }
            }
        }
        self.set_slack(b);
    }

    /// Pushes the path from `x` up to the base `lca` onto `flower`, two vertices a step (the
    /// vertex and its mate's blossom), queueing each mate's blossom to be scanned.
    fn walk_to_blossom_base(&mut self, flower: &mut Vec<usize>, mut x: usize, lca: usize) {
        while x != lca {
            let y = self.st[self.mate[x]];
            flower.push(x);
            flower.push(y);
            self.queue_push(y);
            x = self.st[self.pa[y]];
        }
    }

    fn expand_blossom(&mut self, b: usize) {
        for i in 0..self.flower[b].len() {
            let x = self.flower[b][i];
            self.set_st(x, x);
        }
        let xr = self.from(b, self.edge(b, self.pa[b]).u);
        let pr = self.get_pr(b, xr);
        let mut i = 0;
        while i < pr {
            let (xs, xns) = (self.flower[b][i], self.flower[b][i + 1]);
            self.pa[xs] = self.edge(xns, xs).u;
            self.label[xs] = INNER;
            self.label[xns] = OUTER;
            self.slack[xs] = 0;
            self.set_slack(xns);
            self.queue_push(xns);
            i += 2;
        }
        self.label[xr] = INNER;
        self.pa[xr] = self.pa[b];
        for i in pr + 1..self.flower[b].len() {
            let xs = self.flower[b][i];
            self.label[xs] = FREE;
            self.set_slack(xs);
        }
        self.st[b] = 0;
    }

    /// Handles a tight edge; true if it completed an augmenting path.
    fn on_found_edge(&mut self, e: Edge) -> bool {
        let (u, v) = (self.st[e.u], self.st[e.v]);
        if self.label[v] == FREE {
            self.pa[v] = e.u;
            self.label[v] = INNER;
            let nu = self.st[self.mate[v]];
            self.slack[v] = 0;
            self.slack[nu] = 0;
            self.label[nu] = OUTER;
            self.queue_push(nu);
        } else if self.label[v] == OUTER {
            let lca = self.lowest_common_ancestor(u, v);
            if lca == 0 {
                self.augment(u, v);
                self.augment(v, u);
                return true;
            }
            self.add_blossom(u, lca, v);
        }
        false
    }

    /// One search for an augmenting path with dual adjustments; false when none improves.
    fn augment_once(&mut self) -> bool {
        for x in 1..=self.n_x {
            self.label[x] = FREE;
            self.slack[x] = 0;
        }
        self.queue.clear();
        for x in 1..=self.n_x {
            if self.st[x] == x && self.mate[x] == 0 {
                self.pa[x] = 0;
                self.label[x] = OUTER;
                self.queue_push(x);
            }
        }
        if self.queue.is_empty() {
            return false;
        }
        loop {
            while let Some(u) = self.queue.pop_front() {
                if self.label[self.st[u]] == INNER {
                    continue;
                }
                for v in 1..=self.n {
                    let e = self.edge(u, v);
                    if e.w > 0 && self.st[u] != self.st[v] {
                        if self.delta(e) == 0 {
                            if self.on_found_edge(e) {
                                return true;
                            }
                        } else {
                            self.update_slack(u, self.st[v]);
                        }
                    }
                }
            }
            let mut d = INFINITY;
            for b in self.n + 1..=self.n_x {
                if self.st[b] == b && self.label[b] == INNER {
                    d = d.min(self.lab[b] / 2);
                }
            }
            for x in 1..=self.n_x {
                if self.st[x] == x && self.slack[x] != 0 {
                    let slack = self.delta(self.edge(self.slack[x], x));
                    if self.label[x] == FREE {
                        d = d.min(slack);
                    } else if self.label[x] == OUTER {
                        d = d.min(slack / 2);
                    }
                }
            }
            for u in 1..=self.n {
                match self.label[self.st[u]] {
                    OUTER => {
                        if self.lab[u] <= d {
                            return false;
                        }
                        self.lab[u] -= d;
                    }
                    INNER => self.lab[u] += d,
                    _ => {}
                }
            }
            for b in self.n + 1..=self.n_x {
                if self.st[b] == b {
                    match self.label[b] {
                        OUTER => self.lab[b] += 2 * d,
                        INNER => self.lab[b] -= 2 * d,
                        _ => {}
                    }
                }
            }
            self.queue.clear();
            for x in 1..=self.n_x {
                let s = self.slack[x];
                if self.st[x] == x
                    && s != 0
                    && self.st[s] != x
                    && self.delta(self.edge(s, x)) == 0
                    && self.on_found_edge(self.edge(s, x))
                {
                    return true;
                }
            }
            for b in self.n + 1..=self.n_x {
                if self.st[b] == b && self.label[b] == INNER && self.lab[b] == 0 {
                    self.expand_blossom(b);
                }
            }
        }
    }

    #[cfg(test)]
    /// The blossoms nested in `b`, `b` included, with their real vertices (0-based).
    fn collect_blossoms(&self, b: usize, found: &mut Vec<(Vec<usize>, i128)>) -> Vec<usize> {
        if b <= self.n {
            return vec![b - 1];
        }
        let mut members = Vec::new();
        for &child in &self.flower[b] {
            members.extend(self.collect_blossoms(child, found));
        }
        if self.lab[b] > 0 {
            found.push((members.clone(), self.lab[b]));
        }
        members
    }
}

/// Maximum-weight matching of `n` vertices where `weight(i, j)` (i < j, > 0) weighs every edge:
/// on a complete graph with positive weights the matching is perfect when `n` is even.
pub(crate) fn max_weight_matching(n: usize, weight: impl Fn(usize, usize) -> i128) -> DualMatching {
    let size = 2 * n + 1;
    let mut solver = Solver {
        n,
        n_x: n,
        stride: size,
        ends: vec![(0, 0); size * size],
        weights: vec![0; size * size],
        lab: vec![0; size],
        mate: vec![0; size],
        slack: vec![0; size],
        st: (0..size).collect(),
        pa: vec![0; size],
        flower_from: vec![0; size * (n + 1)],
        label: vec![FREE; size],
        visited: vec![0; size],
        visit_mark: 0,
        flower: vec![Vec::new(); size],
        queue: VecDeque::new(),
    };
    let mut heaviest = 0;
    for u in 1..=n {
        solver.flower_from[u * (n + 1) + u] = u;
        for v in 1..=n {
            let w = if u == v {
                0
            } else {
                weight((u - 1).min(v - 1), (u - 1).max(v - 1))
            };
            solver.set_edge(u, v, Edge { u, v, w });
            heaviest = heaviest.max(w);
        }
    }
    for u in 1..=n {
        solver.lab[u] = heaviest;
    }
    while solver.augment_once() {}
    #[cfg(test)]
    let mut blossoms = Vec::new();
    #[cfg(test)]
    for b in n + 1..=solver.n_x {
        if solver.st[b] == b {
            solver.collect_blossoms(b, &mut blossoms);
        }
    }
    DualMatching {
        mate: (1..=n)
            .map(|u| (solver.mate[u] != 0).then(|| solver.mate[u] - 1))
            .collect(),
        vertex_dual: solver.lab[1..=n].to_vec(),
        #[cfg(test)]
        blossoms,
    }
}

#[cfg(test)]
mod tests;
