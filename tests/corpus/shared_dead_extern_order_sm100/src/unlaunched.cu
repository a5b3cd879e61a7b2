// No host code launches this kernel: dead-code elimination removes it and
// its extern array, but nvlink made `.nv_debug.shared` when it met the array.
extern __shared__ float dyn[];
__global__ void unlaunched(float* out) { dyn[threadIdx.x] = out[threadIdx.x]; __syncthreads(); out[0] = dyn[1]; }
