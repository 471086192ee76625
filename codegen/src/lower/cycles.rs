//! The one cycle finder of the checker: structs that contain themselves, derived values
//! that depend on themselves, archs that inherit themselves.

/// One cycle per strongly connected component that has one (a component of two or more
/// nodes, or a node with an edge to itself), as the node path starting at the
/// component's smallest node. Each node and edge is visited once (Tarjan), so diamonds
/// and long chains cost linear time.
pub(super) fn cycles(n: usize, succ: impl Fn(usize) -> Vec<usize>) -> Vec<Vec<usize>> {
    let edges: Vec<Vec<usize>> =
        (0..n).map(|i| succ(i).into_iter().filter(|&j| j < n).collect()).collect();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut next = 0;
    let mut components = Vec::new();
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // Iterative DFS: (node, next edge to look at).
        let mut work = vec![(root, 0usize)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut e)) = work.last_mut() {
            if let Some(&w) = edges[v].get(*e) {
                *e += 1;
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                work.pop();
                if let Some(&(parent, _)) = work.last() {
                    low[parent] = low[parent].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut comp = Vec::new();
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        comp.push(w);
                        if w == v {
                            break;
                        }
                    }
                    if comp.len() > 1 || edges[v].contains(&v) {
                        components.push(comp);
                    }
                }
            }
        }
    }
    let mut out: Vec<Vec<usize>> =
        components.into_iter().map(|comp| path_in(&edges, &comp)).collect();
    out.sort();
    out
}

/// A cycle through the component's smallest node, staying inside the component.
fn path_in(edges: &[Vec<usize>], comp: &[usize]) -> Vec<usize> {
    let start = *comp.iter().min().expect("a component has a node");
    let inside = |x: usize| comp.contains(&x);
    // Breadth-first from start back to start, inside the component.
    let mut prev = std::collections::BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &w in &edges[v] {
            if w == start {
                let mut path = vec![v];
                let mut cur = v;
                while cur != start {
                    cur = prev[&cur];
                    path.push(cur);
                }
                path.reverse();
                return path;
            }
            if inside(w) && !prev.contains_key(&w) && w != start {
                prev.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    vec![start]
}

#[cfg(test)]
mod tests {
    use super::cycles;

    #[test]
    fn finds_self_loops_and_rings_once() {
        let g = [vec![1], vec![2], vec![0], vec![3], vec![]];
        assert_eq!(cycles(5, |i| g[i].clone()), vec![vec![0, 1, 2], vec![3]]);
    }

    #[test]
    fn diamonds_are_not_cycles_and_stay_linear() {
        // 60 stacked diamonds: 2^60 paths, no cycle.
        let n = 121;
        let succ = |i: usize| {
            if i + 2 < n && i.is_multiple_of(2) {
                vec![i + 1, i + 2]
            } else if i % 2 == 1 {
                vec![i + 1]
            } else {
                vec![]
            }
        };
        assert!(cycles(n, succ).is_empty());
    }
}
