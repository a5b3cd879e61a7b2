// No host code names `hits2` or `scale2`, whose names begin with names the
// other file's host code does: nvlink's LTO makes them local.
__device__ unsigned hits2;
__constant__ float scale2 = 3.0f;
__global__ void count2(unsigned *out, float *f)
{
    out[1] = atomicAdd(&hits2, 1);
    f[threadIdx.x] += scale2;
}
void run_count2(unsigned *out, float *f) { count2<<<1, 32>>>(out, f); }
