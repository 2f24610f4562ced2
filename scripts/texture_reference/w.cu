// float 3x3x2 3D array (tex3D), the 5x4 float texture from pitched memory (cudaResourceTypePitch2D), char4 normalized
#include<cstdio>
#define O cudaTextureObject_t
#define M make_float4
#define R cudaResourceType
#define H cudaMemcpyHostToDevice
__global__ void k(O t,float4*o,float b,float s,int D){int i=threadIdx.x,j=blockIdx.x,z=blockIdx.y;float x=b+i*s,y=b+j*s*1.01f,w=b+z*s*.97f;
o[(z*gridDim.x+j)*blockDim.x+i]=D==3?M(tex3D<float>(t,x,y,w),0,0,0):D==4?tex2D<float4>(t,x,y):M(tex2D<float>(t,x,y),0,0,0);}
int main(){float v[18],p[64*4];for(int i=0;i<18;i++)v[i]=(i*7%18)*1.5f-4;for(int y=0;y<4;y++)for(int x=0;x<5;x++)p[y*64+x]=x*x*1.25f+y*8-x*y*.5f+(x==2&&y==1)*3;
char4 sc[2]={{-128,-127,0,127},{1,-1,64,-64}};
auto cf=cudaCreateChannelDesc<float>(),cc=cudaCreateChannelDesc<char4>();
cudaArray_t a3,ac;cudaMalloc3DArray(&a3,&cf,make_cudaExtent(3,3,2));cudaMemcpy3DParms q={};q.srcPtr=make_cudaPitchedPtr(v,12,3,3);q.dstArray=a3;q.extent=make_cudaExtent(3,3,2);q.kind=H;cudaMemcpy3D(&q);
cudaMallocArray(&ac,&cc,2,1);cudaMemcpy2DToArray(ac,0,0,sc,8,8,1,H);
float*dp;cudaMalloc(&dp,sizeof p);cudaMemcpy(dp,p,sizeof p,H);
float4*o;cudaMallocManaged(&o,64*64*64*16);FILE*f=fopen(getenv("F"),"wb");
for(int T=0;T<3;T++)for(int N=0;N<2;N++)for(int F=0;F<2;F++)for(int A=0;A<5;A++){if(T>1&&(N||A))continue;cudaResourceDesc r={};r.resType=R(0);r.res.array.array=T?ac:a3;
if(T==1){r.resType=R(3);r.res.pitch2D.devPtr=dp;r.res.pitch2D.desc=cf;r.res.pitch2D.width=5;r.res.pitch2D.height=4;r.res.pitch2D.pitchInBytes=256;}
cudaTextureDesc d={};for(int m:{0,1,2})d.addressMode[m]=cudaTextureAddressMode(A<4?A:3);d.filterMode=(cudaTextureFilterMode)F;d.normalizedCoords=N;d.readMode=T==2?cudaReadModeNormalizedFloat:cudaReadModeElementType;
if(A==4)d.borderColor[0]=2.5f;O t;if(cudaCreateTextureObject(&t,&r,&d,0))return 1;
float b=N?-1.25f:-1.5f,s=N?.0557f:.127f;int Z=T?1:16,X=T?64:16;k<<<dim3(X,Z),X>>>(t,o,b,T?s:s*4,T==0?3:T==1?2:4);cudaDeviceSynchronize();fwrite(o,16,X*X*Z,f);cudaDestroyTextureObject(t);}
fclose(f);return cudaGetLastError();}
