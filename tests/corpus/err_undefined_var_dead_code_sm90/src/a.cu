// `scale_by_table` is never called (dead code) but reads `table_a`, which
// nothing defines: nvlink still reports it. An undefined *function* that
// only dead code calls is not reported (`never_defined`).
extern __device__ float table_a[16];
extern __device__ float never_defined(float);
__device__ float scale_by_table(float x) { return x * table_a[1]; }
__device__ float call_missing(float x) { return never_defined(x); }
__device__ float offset(float x);
__global__ void run(float* o) { o[threadIdx.x] = offset(o[threadIdx.x]); }
void launch(float* o) { run<<<1, 32>>>(o); }
