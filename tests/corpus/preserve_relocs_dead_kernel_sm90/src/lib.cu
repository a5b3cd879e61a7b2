__device__ __noinline__ float heavy(const float* x)
{
    float a[64];
#pragma unroll
    for (int i = 0; i < 64; ++i) a[i] = x[i * 33] * x[i];
    float s = 0.f;
#pragma unroll
    for (int i = 0; i < 64; ++i) s += a[i] * a[63 - i] + a[(i * 7) % 64];
    return s;
}
__device__ __noinline__ int walk(int n) { return n <= 1 ? n : walk(n - 1) + walk(n - 2); }
