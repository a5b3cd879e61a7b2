// `idle` is launched by no host code: dead-code elimination would remove
// it, -preserve-relocs keeps it. nvlink then gives it nothing from its
// callees: its own register count and frame, and no stack-size warning
// although it reaches a recursive function.
__device__ float heavy(const float* x);
__device__ int walk(int n);
__global__ void run(float* o) { o[threadIdx.x] = 1.0f; }
__global__ void idle(const float* x, float* o)
{
    volatile float frame[32];
    for (int i = 0; i < 32; ++i) frame[i] = x[i];
    o[threadIdx.x] = heavy(x + threadIdx.x) + walk(threadIdx.x) + frame[threadIdx.x & 31];
}
void launch(float* o) { run<<<1, 32>>>(o); }
