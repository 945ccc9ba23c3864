/* rect_avx2.h -- the names of the default RECT-NICOL's AVX2 copy.
 *
 * The build compiles the files of rect_nicol's one-call default (rect_fast.c and the files it
 * calls into: RECT_AVX2_FILES in CMakeLists.txt) a second time with -mavx2, each through a
 * generated file that defines WPART_RECT_AVX2, includes this header and then the source file:
 * the same code, so the same grids and loads (integer arithmetic, and floating-point sums in
 * the same order: -mavx2 without -mfma contracts nothing), with the half-sweeps' stripe loops
 * on 256-bit registers. Every function of external linkage those files define gets a name of
 * its own here (a name missing is a duplicate symbol at link time, not a silent mix).
 * rect_isa.c's wpart_spatial_rect_nicol_auto_isa runs the copy where the CPU has AVX2 (measured
 * in docs/spatial.rst). */
#ifndef WPART_RECT_AVX2_H
#define WPART_RECT_AVX2_H

#define wpart_i_rect_nicol_auto_body wpart_i_rect_nicol_auto_body_avx2
#define wpart_i_mt64_seed wpart_i_mt64_seed_avx2
#define wpart_i_rect_1d wpart_i_rect_1d_avx2
#define wpart_i_rect_diagonal wpart_i_rect_diagonal_avx2
#define wpart_i_rect_from wpart_i_rect_from_avx2
#define wpart_i_rect_kick wpart_i_rect_kick_avx2
#define wpart_i_rect_lower wpart_i_rect_lower_avx2
#define wpart_i_rect_piece wpart_i_rect_piece_avx2
#define wpart_i_rect_piece_cuts wpart_i_rect_piece_cuts_avx2
#define wpart_i_rect_plain wpart_i_rect_plain_avx2
#define wpart_i_rect_polish wpart_i_rect_polish_avx2
#define wpart_i_rect_polish_g wpart_i_rect_polish_g_avx2
#define wpart_i_rect_rand_grid wpart_i_rect_rand_grid_avx2
#define wpart_i_rect_rand_low wpart_i_rect_rand_low_avx2
#define wpart_i_rect_rand_none wpart_i_rect_rand_none_avx2
#define wpart_i_rect_random wpart_i_rect_random_avx2
#define wpart_i_rg_banded wpart_i_rg_banded_avx2
#define wpart_i_rg_check_grids wpart_i_rg_check_grids_avx2
#define wpart_i_rg_close wpart_i_rg_close_avx2
#define wpart_i_rg_corner wpart_i_rg_corner_avx2
#define wpart_i_rg_csc wpart_i_rg_csc_avx2
#define wpart_i_rg_load_starts wpart_i_rg_load_starts_avx2
#define wpart_i_rg_loads wpart_i_rg_loads_avx2
#define wpart_i_rg_offset wpart_i_rg_offset_avx2
#define wpart_i_rg_open wpart_i_rg_open_avx2
#define wpart_i_rg_run wpart_i_rg_run_avx2
#define wpart_i_rp_heavy wpart_i_rp_heavy_avx2
#define wpart_i_rp_heavy_free wpart_i_rp_heavy_free_avx2
#define wpart_i_rp_loads wpart_i_rp_loads_avx2
#define wpart_i_rp_shift wpart_i_rp_shift_avx2
#define wpart_i_sgo_cuts wpart_i_sgo_cuts_avx2
#define wpart_i_sgo_maxima wpart_i_sgo_maxima_avx2
#define wpart_i_sgo_random wpart_i_sgo_random_avx2
#define wpart_i_sgo_step wpart_i_sgo_step_avx2
#define wpart_spatial_rect_1d wpart_spatial_rect_1d_avx2
#define wpart_spatial_rect_grid wpart_spatial_rect_grid_avx2
#define wpart_spatial_rect_kick wpart_spatial_rect_kick_avx2
#define wpart_spatial_rect_piece_cuts wpart_spatial_rect_piece_cuts_avx2
#define wpart_spatial_rect_polish wpart_spatial_rect_polish_avx2
#define wpart_spatial_rect_random wpart_spatial_rect_random_avx2
#define wpart_spatial_rect_sgo wpart_spatial_rect_sgo_avx2
#define wpart_spatial_rect_sgo_sym wpart_spatial_rect_sgo_sym_avx2

#endif
