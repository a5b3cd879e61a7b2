// A launched kernel with static shared memory, read after unlaunched.o:
// its `.nv.shared.<k>` comes after the `.nv_debug.shared` made before it.
__global__ void tile(float* out) { __shared__ float t[64]; t[threadIdx.x] = out[threadIdx.x]; __syncthreads(); out[threadIdx.x] = t[63 - threadIdx.x]; }
void go(float* o) { tile<<<1, 64>>>(o); }
