// wcslib does the projection and the distortions (SIP, TPV, DSS, ... as wcspih translates them);
// SkyFrames converts the header's frame to FK5 J2000. A wcsprm keeps scratch state, so every call on
// one Wcs holds its mutex; wcspih's parser is not trusted to be reentrant either.
#include "core/io/Wcs.h"

#include "core/io/AbortGuard.h"
#include "core/io/SkyFrames.h"

#include <wcslib/wcs.h>
#include <wcslib/wcsfix.h>
#include <wcslib/wcshdr.h>
#include <wcslib/wcsmath.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace glint {

struct Wcs::Impl {
    mutable std::mutex mutex;
    int count = 0;
    wcsprm* all = nullptr; // every description wcspih found (alternates A..Z included)
    wcsprm* wcs = nullptr; // the primary one, inside `all`
    SkyFrame frame;

    Impl() = default;
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;
    ~Impl() {
        if (all) wcsvfree(&count, &all);
    }
};

namespace {

std::mutex& parserMutex() {
    static std::mutex m;
    return m;
}

// NAXISn from the cards, which wcsfix's cylfix needs to repair odd cylindrical headers.
std::vector<int> axisLengths(const std::string& header, int cardCount) {
    std::vector<int> lengths;
    for (int n = 1; n <= 9; ++n) {
        const std::string key = "NAXIS" + std::to_string(n);
        int value = -1;
        for (int i = 0; i < cardCount; ++i) {
            const std::string card = header.substr(static_cast<std::size_t>(i) * 80, 80);
            if (card.compare(0, key.size(), key) == 0 && card.find_first_not_of(' ', key.size()) == 8 &&
                card[8] == '=') {
                value = std::atoi(card.c_str() + 9);
                break;
            }
        }
        if (value < 0) break;
        lengths.push_back(value);
    }
    return lengths;
}

// wcslib 7's header parser crashes on some damaged cards (bytes outside printable ASCII, a string
// value without its closing quote overruns a buffer) and echoes others to standard output (a keyword
// with no value), where `--json -` must write nothing else. Such cards are blanked: no WCS needs them.
void sanitiseForWcslib(std::string& text) {
    for (char& c : text)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7E) c = ' ';
    for (std::size_t at = 0; at + 80 <= text.size(); at += 80) {
        const std::string card = text.substr(at, 80);
        if (card.compare(8, 2, "= ") != 0) continue;
        const std::size_t open = card.find_first_not_of(' ', 10);
        if (open == std::string::npos || card[open] == '/') { // an undefined value: wcspih prints to stdout
            text.replace(at, 80, 80, ' ');
            continue;
        }
        if (card[open] != '\'') continue;
        bool closed = false;
        for (std::size_t i = open + 1; i < 80; ++i) {
            if (card[i] != '\'') continue;
            if (i + 1 < 80 && card[i + 1] == '\'') { // '' is a quote inside the string
                ++i;
                continue;
            }
            closed = true;
            break;
        }
        if (!closed) text.replace(at, 80, 80, ' ');
    }
}

// SIP distortions (Shupe et al. 2005) of orders above 9 are unheard of; wcslib takes an order of 2^31 - 1
// at its word and allocates and sums (order + 1)^2 terms. A header with one is no usable WCS (the FITS
// loader refuses such a file before this, naming the card; other headers simply have no WCS).
constexpr long kMaxSipOrder = 9;

bool sipOrdersSane(const std::string& text, int cardCount) {
    for (int i = 0; i < cardCount; ++i) {
        const std::string card = text.substr(static_cast<std::size_t>(i) * 80, 80);
        for (const char* key : {"A_ORDER ", "B_ORDER ", "AP_ORDER", "BP_ORDER"}) {
            const std::string k = key;
            if (card.compare(0, k.size(), k) != 0 || card.find_first_not_of(' ', k.size()) < 8 || card[8] != '=')
                continue;
            const std::string value = card.substr(10, card.find('/', 10) == std::string::npos ? std::string::npos
                                                                                             : card.find('/', 10) - 10);
            char* end = nullptr;
            const long order = std::strtol(value.c_str(), &end, 10);
            if (end == value.c_str() || value.find_first_not_of(' ', static_cast<std::size_t>(end - value.c_str())) !=
                                            std::string::npos ||
                order < 0 || order > kMaxSipOrder)
                return false;
        }
    }
    return true;
}

} // namespace

Wcs::Wcs(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Wcs::~Wcs() = default;

std::shared_ptr<const Wcs> Wcs::fromHeader(const std::string& header, int cardCount) {
    if (cardCount <= 0 || header.size() < static_cast<std::size_t>(cardCount) * 80) return nullptr;
    auto impl = std::make_unique<Impl>();
    std::string text = header.substr(0, static_cast<std::size_t>(cardCount) * 80);
    sanitiseForWcslib(text);
    if (!sipOrdersSane(text, cardCount)) return nullptr;
    {
        std::lock_guard lock(parserMutex());
        int rejected = 0;
        int status = -1;
        // ctrl 0: wcslib reports nothing on stderr about the cards it does not take. A damaged card the
        // sanitiser did not foresee may still trip glibc's buffer-overflow check (an abort): guard it.
        wcsprm* all = nullptr;
        int count = 0;
        if (!runGuardedAgainstAbort([&] { status = wcspih(text.data(), cardCount, WCSHDR_all, 0, &rejected, &count, &all); }))
            return nullptr;
        impl->count = count;
        impl->all = all;
        if (status != 0) return nullptr;
    }
    if (impl->count <= 0 || !impl->all) return nullptr;
    int alternates[27];
    if (wcsidx(impl->count, &impl->all, alternates) != 0 || alternates[0] < 0) return nullptr;
    impl->wcs = impl->all + alternates[0];

    const std::vector<int> lengths = axisLengths(text, cardCount);
    int fixStatus[NWCSFIX];
    wcsfix(0, static_cast<int>(lengths.size()) >= impl->wcs->naxis ? lengths.data() : nullptr, impl->wcs, fixStatus);
    if (wcsset(impl->wcs) != 0) return nullptr;
    // The image's x and y must be the celestial axes (in either order).
    if (impl->wcs->lng < 0 || impl->wcs->lat < 0 || impl->wcs->lng > 1 || impl->wcs->lat > 1) return nullptr;
    const double equinox = undefined(impl->wcs->equinox) ? NAN : impl->wcs->equinox;
    const auto frame = SkyFrame::fromHeader(impl->wcs->lngtyp, impl->wcs->radesys, equinox);
    if (!frame) return nullptr;
    impl->frame = *frame;

    std::shared_ptr<Wcs> wcs(new Wcs(std::move(impl)));
    // A description that cannot map its own reference pixel to the sky and back (a singular matrix, a
    // projection that cannot hold it) is of no use to readouts and region files.
    const double x0 = wcs->impl_->wcs->crpix[0] - 1.0, y0 = wcs->impl_->wcs->crpix[1] - 1.0;
    const auto sky = wcs->pixelToSky(x0, y0);
    const auto back = sky ? wcs->skyToPixel(*sky) : std::nullopt;
    if (!back || std::fabs(back->first - x0) > 1e-3 || std::fabs(back->second - y0) > 1e-3) return nullptr;
    return wcs;
}

std::optional<SkyCoord> Wcs::pixelToSky(double x, double y) const {
    if (!std::isfinite(x) || !std::isfinite(y)) return std::nullopt;
    std::lock_guard lock(impl_->mutex);
    wcsprm* w = impl_->wcs;
    const int n = w->naxis;
    std::vector<double> pixel(static_cast<std::size_t>(n), 1.0), image(pixel.size()), world(pixel.size());
    pixel[0] = x + 1.0; // FITS pixels are 1-based
    pixel[1] = y + 1.0;
    double phi = 0, theta = 0;
    int status = 0;
    if (wcsp2s(w, 1, n, pixel.data(), image.data(), &phi, &theta, world.data(), &status) != 0 || status != 0)
        return std::nullopt;
    const double lon = world[static_cast<std::size_t>(w->lng)];
    const double lat = world[static_cast<std::size_t>(w->lat)];
    if (!std::isfinite(lon) || !std::isfinite(lat)) return std::nullopt;
    return toFk5J2000(impl_->frame, lon, lat);
}

std::optional<std::pair<double, double>> Wcs::skyToPixel(const SkyCoord& sky) const {
    if (!std::isfinite(sky.ra) || !std::isfinite(sky.dec) || std::fabs(sky.dec) > 90.0) return std::nullopt;
    const SkyCoord native = fromFk5J2000(impl_->frame, sky);
    std::lock_guard lock(impl_->mutex);
    wcsprm* w = impl_->wcs;
    const int n = w->naxis;
    std::vector<double> world(w->crval, w->crval + n), image(static_cast<std::size_t>(n)), pixel(image.size());
    world[static_cast<std::size_t>(w->lng)] = native.ra;
    world[static_cast<std::size_t>(w->lat)] = native.dec;
    double phi = 0, theta = 0;
    int status = 0;
    if (wcss2p(w, 1, n, world.data(), &phi, &theta, image.data(), pixel.data(), &status) != 0 || status != 0)
        return std::nullopt;
    if (!std::isfinite(pixel[0]) || !std::isfinite(pixel[1])) return std::nullopt;
    return std::make_pair(pixel[0] - 1.0, pixel[1] - 1.0);
}

std::string Wcs::nativeFrame() const { return impl_->frame.name(); }

// Rounded once, in the last printed unit, so that 59.9996 s never prints as "60.000".
std::string formatRa(double raDegrees) {
    double hours = std::fmod(raDegrees / 15.0, 24.0);
    if (hours < 0) hours += 24.0;
    long long ms = std::llround(hours * 3600.0 * 1000.0) % (24LL * 3600 * 1000);
    const int hh = static_cast<int>(ms / 3600000);
    ms %= 3600000;
    const int mm = static_cast<int>(ms / 60000);
    ms %= 60000;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%02d:%02d:%02lld.%03lld", hh, mm, ms / 1000, ms % 1000);
    return buf;
}

std::string formatDec(double decDegrees) {
    const char sign = decDegrees < 0 ? '-' : '+';
    long long cs = std::llround(std::fabs(decDegrees) * 3600.0 * 100.0);
    const int dd = static_cast<int>(cs / 360000);
    cs %= 360000;
    const int mm = static_cast<int>(cs / 6000);
    cs %= 6000;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%c%02d:%02d:%02lld.%02lld", sign, dd, mm, cs / 100, cs % 100);
    return buf;
}

} // namespace glint
