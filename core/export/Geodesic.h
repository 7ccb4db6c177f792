// Lengths on an ellipsoid (issue 32: trace lengths in metres over a geographic CRS, as GIS tools measure them).
#pragma once

namespace glint {

// The geodesic distance in metres between two points given as longitude, latitude in degrees on the ellipsoid
// of semi-major axis a (metres) and inverse flattening invF (0: a sphere of radius a): Vincenty's inverse
// formula (within a millimetre of Karney's exact geodesic for any pair that is not nearly antipodal); for a
// nearly antipodal pair, where it does not converge, the great circle on the sphere of radius a.
double geodesicDistance(double lon1, double lat1, double lon2, double lat2, double a, double invF);

} // namespace glint
