/* rect_isa.c -- which copy of rect_nicol's one-call default runs: the plain one (rect_fast.c
 * and the files it calls into, compiled as they are) or, where the build made it (x86-64, GCC
 * or Clang: CMakeLists.txt's RECT_AVX2_FILES) and the CPU has AVX2, the same files compiled
 * with -mavx2 under rect_avx2.h's names. Compiled once (not in that list). */
#include "rect_grid.h"

#ifdef WPART_HAVE_RECT_AVX2
/* the AVX2 copy's body (rect_avx2.h) */
wpart_status_t wpart_i_rect_nicol_auto_body_avx2(const wpart_rg_csr_t *A, const int64_t *iv,
                                                 int64_t P, int64_t Q, int64_t max_half,
                                                 const wpart_control_t *control,
                                                 wpart_rg_auto_t *out);
#endif

int wpart_spatial_rect_nicol_auto_avx2(void)
{
#ifdef WPART_HAVE_RECT_AVX2
    return __builtin_cpu_supports("avx2") ? 1 : 0;
#else
    return 0;
#endif
}

wpart_status_t wpart_spatial_rect_nicol_auto_isa(const wpart_rg_csr_t *A, const int64_t *iv,
                                                 int64_t P, int64_t Q, int64_t max_half,
                                                 const wpart_control_t *control,
                                                 wpart_rg_auto_t *out, int simd)
{
#ifdef WPART_HAVE_RECT_AVX2
    if (simd && wpart_spatial_rect_nicol_auto_avx2()) {
        return wpart_i_rect_nicol_auto_body_avx2(A, iv, P, Q, max_half, control, out);
    }
#endif
    return wpart_i_rect_nicol_auto_body(A, iv, P, Q, max_half, control, out);
}

wpart_status_t wpart_spatial_rect_nicol_auto(const wpart_rg_csr_t *A, const int64_t *iv,
                                             int64_t P, int64_t Q, int64_t max_half,
                                             const wpart_control_t *control,
                                             wpart_rg_auto_t *out)
{
    return wpart_spatial_rect_nicol_auto_isa(A, iv, P, Q, max_half, control, out, 1);
}
