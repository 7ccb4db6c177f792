// The geometry of one trace a -> b, shared by every backend so that they optimise the same function:
// guide points, the shape of every possible segment, the turn angles and the feasible-turn intervals.
#pragma once

#include "core/algo/trace/LineTrace.h"

#include <vector>

namespace glint {

// A segment P -> Q is scored at N = max(1, ceil(|PQ| - 1e-6)) samples, the midpoints of N equal parts
// (spacing at most one pixel), each weighted |PQ| / N: the sum approximates the line integral of the
// per-sample score, so a path's score does not jump when a segment's sample count changes. Samples
// never sit on the path's vertices, so no point is counted by two segments.
struct SegmentShape {
    int samples = 1;
    double weight = 1.0;              // |PQ| / N
    double length = 1.0;              // |PQ|
    double stepX = 0.0, stepY = 0.0;  // (Q - P) / N
    double dirX = 1.0, dirY = 0.0;    // unit direction v
};

// The shape of the segment (dx, dy) (not zero).
SegmentShape segmentShape(double dx, double dy);

struct IndexRange {
    int lo = 0;
    int hi = -1;
    bool empty() const { return hi < lo; }
};

class TraceGeometry {
public:
    // params must be valid (validateTraceParams) and a != b. withTurns = false leaves the turn angles and
    // intervals for computeTurns() (a GPU scores the segments meanwhile: they need only the shapes).
    TraceGeometry(TracePoint a, TracePoint b, const TraceParams& params, bool withTurns = true);
    // The turn angles and feasible-turn intervals (everything below "Direction of each segment"); does
    // nothing when they are already there. They must be there before any of their accessors is called.
    void computeTurns();
    bool hasTurns() const { return turns_; }

    int guides() const { return n_; }
    int points() const { return d_; }
    double halfWidth() const { return w_; }
    double spacing() const { return s_; }    // between neighbouring points of a guide
    double guideStep() const { return h_; }  // |ab| / (n + 1), the distance between neighbouring guides
    TracePoint a() const { return a_; }
    TracePoint b() const { return b_; }
    // Guide 0 is a and guide n+1 is b (index ignored); guides 1..n have points 0..d-1.
    TracePoint point(int guide, int index) const;
    double offset(int index) const { return -w_ + index * s_; } // signed distance from the axis ab

    // q_{k,c} -> q_{k+1,c+delta} for 1 <= k < n; a -> q_{1,i}; q_{n,i} -> b.
    const SegmentShape& interiorShape(int delta) const { return interior_[delta + d_ - 1]; }
    const SegmentShape& firstShape(int index) const { return first_[index]; }
    const SegmentShape& lastShape(int index) const { return last_[index]; }

    // Direction of each segment, measured from ab (radians, in (-pi/2, pi/2)); every segment advances along
    // ab, so the turn between two consecutive segments is exactly the difference of their angles.
    double interiorAngle(int delta) const { return interiorAngle_[delta + d_ - 1]; }
    double firstAngle(int index) const { return firstAngle_[index]; }
    double lastAngle(int index) const { return lastAngle_[index]; }
    // The turn limit every backend applies. A tolerance of 1e-9 rad lets a turn of exactly theta through.
    bool turnAllowed(double angleIn, double angleOut) const {
        const double turn = angleOut - angleIn;
        return turn <= limit_ && turn >= -limit_;
    }

    // Interval form of the same predicate, for the fast DPs. The angles are non-decreasing in the offset, so
    // for a fixed outgoing segment the incoming ones that turnAllowed accepts form one contiguous range.
    // Turn at q_{k,c} (1 < k < n) towards q_{k+1,x}: allowed predecessors p on guide k-1.
    IndexRange predecessors(int c, int x) const {
        const IndexRange m = incoming_[x - c + d_ - 1];
        return {c - m.hi < 0 ? 0 : c - m.hi, c - m.lo > d_ - 1 ? d_ - 1 : c - m.lo};
    }
    // Allowed m = c - p of an interior turn whose outgoing segment has offset delta (never empty: m = delta).
    IndexRange allowedIncomingDeltas(int delta) const { return incoming_[delta + d_ - 1]; }
    // n >= 2: after a -> q_{1,c}, the allowed q_{2,x}; before q_{n,c} -> b, the allowed q_{n-1,p}.
    IndexRange firstTurnSuccessors(int c) const { return firstNext_[c]; }
    IndexRange lastTurnPredecessors(int c) const { return lastPrev_[c]; }
    // n == 1: whether the turn at q_{1,c} between a and b is allowed.
    bool singleGuideAllowed(int c) const { return turnAllowed(firstAngle_[c], lastAngle_[c]); }

    // Samples over all the d^2 segments between two neighbouring guides (1 <= k < n), for work estimates.
    double samplesPerTransition() const { return samplesPerTransition_; }

    // The segments that some feasible path can use. A DP reads every segment of the middle transitions,
    // but of the first interior transition (q_1 -> q_2) only q_{1,c} -> q_{2,x} with x in
    // firstTurnSuccessors(c), and of the last (q_{n-1} -> q_n) only q_{n-1,c} -> q_{n,x} with c in
    // lastTurnPredecessors(x): the fast backends score only those (the rest are never read). Needs the turns.
    // For transition k (1 <= k < n) and start point c: the x to score, one interval.
    IndexRange usedSuccessors(int k, int c) const;
    // Samples of the segments a DP uses, over all interior transitions (for floors and estimates).
    double usedInteriorSamples() const;

private:
    TracePoint a_, b_;
    int n_ = 0, d_ = 0;
    double w_ = 0.0, s_ = 0.0, h_ = 0.0, limit_ = 0.0;
    double ux_ = 1.0, uy_ = 0.0, px_ = 0.0, py_ = 1.0;
    std::vector<SegmentShape> interior_, first_, last_;
    std::vector<double> interiorAngle_, firstAngle_, lastAngle_;
    std::vector<IndexRange> incoming_, firstNext_, lastPrev_;
    double samplesPerTransition_ = 0.0;
    bool turns_ = false;
};

// The score of the segment that starts at `start` and has the given shape, in double precision: the
// definition that the reference and the tests use. Samples outside the image count as zero.
double segmentScoreExact(const TraceField& field, TracePoint start, const SegmentShape& shape);

// The length of the path a, q_1..q_n, b with the given guide indices (the sum of its segments' lengths).
double pathLength(const TraceGeometry& geometry, const std::vector<int>& indices);

// Turns a backend's optimum into a leg: points, and every segment's score in double precision.
TraceLeg assembleLeg(const TraceField& field, const TraceGeometry& geometry, const std::vector<int>& indices,
                     double optimumScore);

} // namespace glint
