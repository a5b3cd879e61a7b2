// Double literals ptxas cannot encode as immediates go to
// .nv.constant2.<kernel>, each under a local `<kernel>.const_opt.A.B` symbol
// that a final link leaves out, as it does `_param`.
__global__ void k_poly(double *p)
{
  double x = p[threadIdx.x];
  p[threadIdx.x] = ((x * 0.123456789012345 + 7.77777777777) * x - 3.14159265358979) * 1.00000000001;
}
__global__ void k_scale(double *p) { p[threadIdx.x] *= 2.00000000003; }
