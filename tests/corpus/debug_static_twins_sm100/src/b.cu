__global__ void second(unsigned *out, const unsigned *in, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = umax(umin(in[i], 200u), 7u);
}
