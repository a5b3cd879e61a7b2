// Linked first: its .debug_frame starts the output's.
__global__ void k_first(int *o) { o[threadIdx.x] = threadIdx.x * 3; }
__global__ void k_first2(float *o) { o[threadIdx.x] *= 0.5f; }
