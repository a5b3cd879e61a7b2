// -kernels-used=boss: `worker` stays only because `boss` launches it, and
// libcudadevrt's static kernels only because its tables hold their
// addresses. With one kernel kept by the list, nvlink makes them
// functions: no EIATTR_MIN_STACK_SIZE, `blend` goes, `boss` takes the
// barriers of every function (the static kernels' 1).
__device__ __noinline__ float blend(float a, float b) { return 0.25f * a + 0.75f * b; }
__global__ void worker(float* p) { p[threadIdx.x] = blend(p[threadIdx.x], p[threadIdx.x + 1]); }
__global__ void boss(float* p) { if (threadIdx.x == 0) worker<<<1, 32>>>(p); }
__global__ void idle(float* p) { p[0] = 0; }
