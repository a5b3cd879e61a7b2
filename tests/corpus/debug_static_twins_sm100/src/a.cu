// Both files call CUDA's `umin` (a static function of its headers, which
// keeps its C name): under -G each file has its own copy named `umin`, and
// the output lists both under the same name.
__global__ void first(unsigned *out, const unsigned *in, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = umin(in[i], 100u);
}
