/*
 * spatial_tmpl.h -- the rectangular-partition algorithms of Saule et al. 2012, written once and compiled
 * twice by spatial.c: T = int64_t (IS_INT 1, exact, fractions compared in 128 bits) and
 * T = double (IS_INT 0). FN(x) names a function for the current type. The three macros are
 * undefined at the end.
 *
 * The template is split by the paper's classes; every piece is static and included here in
 * dependency order (each file uses only those above it, except the one forward declaration
 * noted in sp_jag_pq.h):
 *
 *   sp_common.h     window / context, the input the kernels read (dense prefix or sparse
 *                   matrix), fractions, 1D optimum, generic probe, Nicol, bisection,
 *                   proportional allocation, max load / bottleneck of a rectangle list
 *   sp_rect.h       rectilinear: RECT-UNIFORM, RECT-NICOL                    (Sec. 3.1)
 *   sp_jag_pq.h     P x Q jagged: JAG-PQ-HEUR, JAG-PQ-OPT (Nicol, DP), speeds (Sec. 3.2.1)
 *   sp_jag_m.h      m-way jagged heuristics: HEUR, PROBE, HEUR-PROBE, ALLOC  (Sec. 3.2.2)
 *   sp_jag_m_opt.h  m-way jagged optimum JAG-M-OPT, exact OPT / ALLOC with speeds (Sec. 3.2.2)
 *   sp_hier.h       hierarchical: HIER-RB, HIER-RELAXED                      (Sec. 3.3)
 *   sp_hier_opt.h   hierarchical optimum HIER-OPT                            (Sec. 3.3)
 *   sp_driver.h     one method on the whole matrix (orientations, buffers, statistics)
 *   sp_hybrid.h     HYBRID (Sec. 5) and the FN(partition) entry point
 *   sp_hier3d.h     HIER-RB on 3D loads (extension)
 *   sp_sparse.h     the entry point on a sparse matrix (CSR + CSC): the jagged methods are the
 *                   kernels above reading the nonzeros (FN(ctx_t).sp); RECT-NICOL's sweep and
 *                   the loads of a partition from the nonzeros
 */

#include "sp_common.h"
#include "sp_rect.h"
#include "sp_jag_pq.h"
#include "sp_jag_m.h"
#include "sp_jag_m_opt.h"
#include "sp_hier.h"
#include "sp_hier_opt.h"
#include "sp_driver.h"
#undef TINF
#include "sp_hybrid.h"
#include "sp_hier3d.h"
#include "sp_sparse.h"

#undef T
#undef FN
#undef IS_INT
