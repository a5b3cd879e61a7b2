// -lineinfo for sm_120: the Mercury copy of the PTX text section
// (.nv.merc.nv_debug_ptx_txt.<hash>) shares its bytes with the classic one.
__global__ void k_line(int *o) { o[threadIdx.x] = threadIdx.x * 3; }
