#include "tmpl.h"
__global__ void k_b(int *o, float *f)
{
  o[0] = mix<int>(o[1], 7) + shared_inline(o[2]);
  f[0] = mix<float>(f[1], f[2]);
}
