#include <cuda_fp16.h>
struct S3 { char c[3]; }; struct S16 { double a, b; }; struct S8a { int a; float b; };
__device__ __noinline__ char fc(char a, short b) { return a+b; }
__device__ __noinline__ double fd(double a, float b) { return a*b; }
__device__ __noinline__ __half fh(__half a) { return a; }
__device__ __noinline__ S3 fs3(S3 a) { return a; }
__device__ __noinline__ S16 fs16(S16 a, S8a b) { a.a += b.a; return a; }
__device__ __noinline__ void fv(int *p, bool q, unsigned long long r) { *p = q + r; }
__device__ __noinline__ float4 f4(float4 a, int2 b) { a.x += b.x; return a; }
__global__ void k(int *p, double *d) {
  p[0] = fc(p[1], p[2]); d[0] = fd(d[1], p[3]); 
  __half h = fh(__float2half(d[2])); d[3] = __half2float(h);
  S3 s; s.c[0]=p[4]; s = fs3(s); p[5]=s.c[1];
  S16 t{d[4], d[5]}; S8a u{p[6], 1.0f}; t = fs16(t, u); d[6]=t.b;
  fv(p+7, p[8] != 0, p[9]);
  float4 a = make_float4(d[7],0,0,0); a = f4(a, make_int2(p[10], 0)); d[8]=a.y;
}
