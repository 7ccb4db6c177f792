import subprocess, sys, json, math
def load(path):
    data=subprocess.run(['convert',path,'-colorspace','Gray','-depth','8','pgm:-'],capture_output=True,check=True).stdout
    parts=data.split(b'\n',3); w,h=map(int,parts[1].split()); px=parts[3]
    return w,h,px
W,H,PX=load('/work/wt-trace-real/resources/samples/aero.png')
def at(x,y):
    x0=int(math.floor(x)); y0=int(math.floor(y)); fx=x-x0; fy=y-y0
    def g(i,j):
        i=min(max(i,0),W-1); j=min(max(j,0),H-1); return PX[j*W+i]
    return (g(x0,y0)*(1-fx)*(1-fy)+g(x0+1,y0)*fx*(1-fy)+g(x0,y0+1)*(1-fx)*fy+g(x0+1,y0+1)*fx*fy)
def resample(pts,step):
    out=[pts[0]]
    for (ax,ay),(bx,by) in zip(pts,pts[1:]):
        L=math.hypot(bx-ax,by-ay); n=max(1,round(L/step))
        for k in range(1,n+1): out.append((ax+(bx-ax)*k/n, ay+(by-ay)*k/n))
    return out
def refine(pts,pol,R,step=8,along=3):
    pts=resample(pts,step); res=[]
    for i,(x,y) in enumerate(pts):
        a=pts[max(0,i-1)]; b=pts[min(len(pts)-1,i+1)]
        tx,ty=b[0]-a[0],b[1]-a[1]; L=math.hypot(tx,ty); tx/=L; ty/=L; nx,ny=-ty,tx
        offs=[k*0.25 for k in range(int(-R*4),int(R*4)+1)]
        prof=[]
        for o in offs:
            v=0
            for s in range(-along,along+1): v+=at(x+nx*o+tx*s,y+ny*o+ty*s)
            prof.append(v/(2*along+1))
        sgn=1 if pol=='bright' else -1
        p=[sgn*v for v in prof]
        # extremum within central half
        c=len(p)//2; lo=c-len(p)//4; hi=c+len(p)//4
        k=max(range(lo,hi+1),key=lambda j:p[j])
        bg=(min(p[:len(p)//6+1])+min(p[-(len(p)//6+1):]))/2 if False else None
        left=min(p[:k+1]); right=min(p[k:]); base=max(left,right); half=(p[k]+base)/2
        l=k
        while l>0 and p[l]>half: l-=1
        r=k
        while r<len(p)-1 and p[r]>half: r+=1
        mid=(offs[l]+offs[r])/2; width=offs[r]-offs[l]
        res.append((round(x+nx*mid,2),round(y+ny*mid,2),round(mid,2),round(width,1),round(sgn*(p[k]-base),0)))
    return res
if __name__=='__main__':
    pts=[tuple(map(float,p.split(','))) for p in sys.argv[1].split(';')]
    pol=sys.argv[2]; R=float(sys.argv[3]); step=float(sys.argv[4]) if len(sys.argv)>4 else 8
    r=refine(pts,pol,R,step)
    for t in r: print(t)
    json.dump([[a,b] for a,b,*_ in r],open(sys.argv[5] if len(sys.argv)>5 else '/tmp/tr/last.json','w'))
