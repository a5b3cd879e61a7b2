#include "tmpl.h"
__global__ void k_a(int *o) { o[0] = mix<int>(o[1], o[2]) + shared_inline(o[3]); }
