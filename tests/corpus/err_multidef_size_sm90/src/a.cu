__constant__ float c_dup[4]; __global__ void k1(float* p) { p[0] = c_dup[1]; }
