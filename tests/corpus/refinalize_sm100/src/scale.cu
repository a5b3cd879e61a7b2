// Two call-free kernels: ptxas -c gives the stack-pointer load a write
// scoreboard; nvlink's finalizer writes their code again without it and
// allocates every scoreboard anew.
__global__ void scale(const float *x, float *y, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

__global__ void tile_sum(const int *in, int *out)
{
    __shared__ int tile[64];
    tile[threadIdx.x] = in[blockIdx.x * 64 + threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) {
        int s = 0;
        for (int k = 0; k < 64; ++k)
            s += tile[k];
        out[blockIdx.x] = s;
    }
}
