// Built for sm_120a: ptxas writes CAN_FASTPATH_FINALIZE 0x10 (sm_120 alone),
// where sm_120 code has 0x50; nvlink keeps the inputs' mask when code is
// linked.
__global__ void k_scale(float *a) { a[threadIdx.x] *= 3.0f; }
