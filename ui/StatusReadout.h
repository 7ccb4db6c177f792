// The status bar's permanent fields: pixel x, y and the value under the cursor (or "blank"), RA/Dec
// (FK5 J2000, sexagesimal) when the image has a WCS, map x/y in the CRS's units and WGS 84 lon/lat when it
// is georeferenced (GeoTIFF, world file), the zoom, and the backend that analyses run on.
#pragma once

#include <QObject>
#include <QPointF>
#include <QString>

#include <memory>

class QLabel;
class QStatusBar;

namespace glint {
class Image;
}

namespace glint::ui {

class StatusReadout : public QObject {
    Q_OBJECT
public:
    explicit StatusReadout(QStatusBar& bar, QObject* parent = nullptr);

    void setImage(std::shared_ptr<const glint::Image> image);
    void showCursor(QPointF imagePoint);
    void clearCursor();
    void showZoom(double scale);

    QString pixelText() const;
    QString valueText() const;
    QString skyText() const;
    QString mapText() const;
    QString backendText() const;
    QString zoomText() const;

    // The texts for a pixel, as the status bar shows them (empty when outside the image).
    static QString formatPixel(const glint::Image& image, int x, int y);
    static QString formatValue(const glint::Image& image, int x, int y);
    static QString formatSky(const glint::Image& image, int x, int y);
    // "X 500005  Y 4999995 m  lon 15.000064°  lat 45.153342°" at the pixel's centre; decimals enough
    // for a tenth of a pixel. Empty without georeferencing or outside the image.
    static QString formatMap(const glint::Image& image, int x, int y);

private:
    std::shared_ptr<const glint::Image> image_;
    QLabel* pixel_;
    QLabel* value_;
    QLabel* sky_;
    QLabel* map_;
    QLabel* zoom_;
    QLabel* backend_;
};

} // namespace glint::ui
