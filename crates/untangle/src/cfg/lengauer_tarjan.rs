//! Immediate dominators by Lengauer & Tarjan, "A fast algorithm for finding dominators in a
//! flowgraph" (TOPLAS 1979), the "simple" variant: semidominators with path compression but
//! no balanced linking, O(m log n). The presentation follows Appel, *Modern Compiler
//! Implementation*, §19.2, with `AncestorWithLowestSemi` made iterative: a 100k-block chain
//! gives a 100k-deep ancestor chain, which recursion would not survive.
//!
//! Why not Cooper–Harvey–Kennedy? CHK is simpler but its intersect walks are quadratic on
//! some shapes, and the post-dominator problem runs on the *reverse* graph, which is not
//! reducible in general, where CHK needs as many passes as the loop-connectedness of the
//! graph (one per nesting level on a deep loop nest). Lengauer–Tarjan has neither problem,
//! and one implementation serves both trees.

use super::dense::Csr;

pub(crate) const NONE: u32 = u32::MAX;

/// `idom[v]` for every node of the graph given by `succ`/`pred` (same node numbering),
/// `NONE` for `root` and for nodes `root` does not reach.
pub(crate) fn immediate_dominators(root: u32, succ: &Csr, pred: &Csr) -> Vec<u32> {
    let n = succ.len();
    // The per-node arrays in one allocation (this runs several times per function, and
    // most functions are small, so allocations were a good part of its cost).
    let mut scratch = vec![NONE; 8 * n];
    let (dfnum, rest) = scratch.split_at_mut(n);
    let (parent, rest) = rest.split_at_mut(n);
    let (semi, rest) = rest.split_at_mut(n);
    let (ancestor, rest) = rest.split_at_mut(n);
    let (best, rest) = rest.split_at_mut(n);
    let (samedom, rest) = rest.split_at_mut(n);
    // Buckets as intrusive singly linked lists: a node sits in at most one bucket.
    let (bucket_head, bucket_next) = rest.split_at_mut(n);
    for (v, b) in best.iter_mut().enumerate() {
        *b = v as u32;
    }
    let mut vertex: Vec<u32> = Vec::with_capacity(n);

    // Step 1: DFS numbering (iterative, successors in order).
    let mut stack: Vec<(u32, u32)> = vec![(root, 0)];
    dfnum[root as usize] = 0;
    vertex.push(root);
    while let Some(top) = stack.last_mut() {
        let (v, next) = *top;
        let succs = succ.neighbors(v);
        if (next as usize) < succs.len() {
            top.1 += 1;
            let w = succs[next as usize];
            if dfnum[w as usize] == NONE {
                dfnum[w as usize] = vertex.len() as u32;
                vertex.push(w);
                parent[w as usize] = v;
                stack.push((w, 0));
            }
        } else {
            stack.pop();
        }
    }

    let mut idom = vec![NONE; n];
    let mut path: Vec<u32> = Vec::new();

    // Ancestor of `v` in the linked forest with the lowest semidominator (path-compressing).
    let eval = |v: u32, ancestor: &mut [u32], best: &mut [u32], semi: &[u32], path: &mut Vec<u32>| -> u32 {
        let mut x = v;
        while ancestor[x as usize] != NONE && ancestor[ancestor[x as usize] as usize] != NONE {
            path.push(x);
            x = ancestor[x as usize];
        }
        while let Some(y) = path.pop() {
            let a = ancestor[y as usize];
            let b = best[a as usize];
            if dfnum[semi[b as usize] as usize] < dfnum[semi[best[y as usize] as usize] as usize] {
                best[y as usize] = b;
            }
            ancestor[y as usize] = ancestor[a as usize];
        }
        best[v as usize]
    };

    // Steps 2 and 3: semidominators, then implicit idoms, in reverse DFS order.
    for i in (1..vertex.len()).rev() {
        let w = vertex[i];
        let p = parent[w as usize];
        let mut s = p;
        for &v in pred.neighbors(w) {
            if dfnum[v as usize] == NONE {
                continue;
            }
            let candidate = if dfnum[v as usize] <= dfnum[w as usize] {
                v
            } else {
                semi[eval(v, ancestor, best, semi, &mut path) as usize]
            };
            if dfnum[candidate as usize] < dfnum[s as usize] {
                s = candidate;
            }
        }
        semi[w as usize] = s;
        bucket_next[w as usize] = bucket_head[s as usize];
        bucket_head[s as usize] = w;
        ancestor[w as usize] = p;
        best[w as usize] = w;
        let mut v = std::mem::replace(&mut bucket_head[p as usize], NONE);
        while v != NONE {
            let y = eval(v, ancestor, best, semi, &mut path);
            if semi[y as usize] == semi[v as usize] {
                idom[v as usize] = p;
            } else {
                samedom[v as usize] = y;
            }
            v = bucket_next[v as usize];
        }
    }
    // Step 4: deferred idoms, in DFS order so `idom[samedom]` is final.
    for &w in vertex.iter().skip(1) {
        let same = samedom[w as usize];
        if same != NONE {
            idom[w as usize] = idom[same as usize];
        }
    }
    idom
}
