__constant__ float c_dup[8]; __global__ void k2(float* p) { p[0] = c_dup[2]; }
