#include "h.h"
__device__ F ua();
__global__ void k(int* o){ volatile F p = &h; volatile F q = &g; o[0] = p(o[1]) + q(o[3]) + ua()(o[2]); }
