import json, math, sys
F=json.load(open(sys.argv[2] if len(sys.argv) > 2 else 'features.json'))
def arclen(p):
    s=[0.0]
    for a,b in zip(p,p[1:]): s.append(s[-1]+math.hypot(b[0]-a[0],b[1]-a[1]))
    return s
def at(p,t):
    s=arclen(p); L=s[-1]*t
    for i in range(len(p)-1):
        if s[i+1]>=L-1e-9:
            u=(L-s[i])/max(1e-9,s[i+1]-s[i]); a,b=p[i],p[i+1]
            tx,ty=b[0]-a[0],b[1]-a[1]; n=math.hypot(tx,ty)
            return a[0]+u*tx,a[1]+u*ty,-ty/n,tx/n
    a,b=p[-2],p[-1]; tx,ty=b[0]-a[0],b[1]-a[1]; n=math.hypot(tx,ty); return b[0],b[1],-ty/n,tx/n
spans={'dark-strip':[(0,1),(0,.5),(.4,.9),(.2,.7)],
 'bright-strip':[(0,1),(0,.45),(.5,1),(.25,.75)],
 'road-east':[(0,.97),(0,.4),(.3,.7),(.6,.97),(.1,.9)],
 'road-curve':[(0,1),(0,.6),(.35,1)],
 'highway':[(0,1),(0,.5),(.4,1),(.2,.8)],
 'track-west':[(0,1),(.1,.9)],
 'gully':[(0,1),(0,.6),(.4,1)],
 'path-north':[(0,1)],
 'tree-belt-east':[(0,1),(0,.6),(.4,1)],
 'tree-belt-west':[(0,1),(.15,.85)]}
jit=[1.2,-0.8,0.5,-1.5,0.0,1.0,-0.4,1.5,-1.1,0.3]
cases=[];j=0
for k,sp in spans.items():
    for (a,b) in sp:
        clicks=[]
        for t in (a,b):
            x,y,nx,ny=at(F[k]['truth'],t); o=jit[j%len(jit)]; j+=1
            clicks.append([round(x+nx*o,1),round(y+ny*o,1)])
        cases.append({'name':f'{k} {a:g}-{b:g}','feature':k,'clicks':clicks})
feats=[{'name':k,'polarity':v['polarity'],'width_px':v['width_px'],'truth':v['truth']} for k,v in F.items()]
out={'image':'resources/samples/aero.png','features':feats,'cases':cases}
import sys
txt=json.dumps(out,indent=1)
open(sys.argv[1],'w').write(txt)
print(len(cases))
