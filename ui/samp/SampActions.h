// File ▸ SAMP: send the image (its FITS file) and the source catalogue (a FITS table) to TOPCAT, DS9 or any
// SAMP client, one of them or all, through the hub of $SAMP_HUB or ~/.samp (samp/SampClient.h). The
// submenus list the hub's subscribed clients each time they open. Every hub call has a timeout, so a hub
// that is gone or stuck costs seconds, never a hang; errors are shown through MainWindow::reportError.
#pragma once

#include "samp/SampClient.h"

#include <QObject>
#include <QString>
#include <QVector>

#include <functional>
#include <memory>
#include <string>

class QAction;
class QMenu;

namespace glint::ui {

class MainWindow;

class SampActions : public QObject {
    Q_OBJECT
public:
    static constexpr const char* kImageMtype = "image.load.fits";
    static constexpr const char* kTableMtype = "table.load.fits";

    explicit SampActions(MainWindow& window);
    ~SampActions() override;

    QMenu* menu() const { return menu_; }              // File ▸ SAMP
    QMenu* imageMenu() const { return imageMenu_; }    // Send Image To ▸ (greyed without a FITS file)
    QMenu* catalogueMenu() const { return catalogueMenu_; } // Send Catalogue To ▸ (greyed without a catalogue)

    // The catalogue hook: writes the current catalogue to a FITS table and returns its absolute path, or
    // returns an empty string when there is no catalogue. Called on the UI thread when the SAMP menu opens
    // (to grey out "Send Catalogue To") and again when sending, so it must be quick. Unset: no catalogue.
    using CatalogueProvider = std::function<std::string()>;
    void setCatalogueProvider(CatalogueProvider provider);

    // The image's file when it can be sent (a FITS file on disk), else empty.
    QString imageFile() const;
    // The clients subscribed to `mtype` (empty, with lastError(), when the hub cannot be reached).
    QVector<samp::SampPeer> clients(const QString& mtype);
    // Sends to one client by its id, or to all (empty id). True when sent; false once the message has
    // been shown (lastError() keeps it). Sending to all when no client takes the message is an error.
    bool sendImage(const QString& recipientId = {});
    bool sendCatalogue(const QString& recipientId = {});
    // Options of the SAMP client made on first use (tests shorten the timeout).
    void setClientOptions(const samp::SampClientOptions& options) { options_ = options; }

    QString lastError() const { return lastError_; }
    QString lastMessage() const { return lastMessage_; } // the last success, as shown in the status bar

signals:
    void sent(const QString& message);
    void sendFailed(const QString& message);

private:
    void updateEnabled();
    void fillMenu(QMenu* menu, const QString& mtype, bool image);
    // Runs `use` on the client, registering first when there is none; a client whose hub stopped or
    // restarted is dropped and, once, a fresh one tried. Throws SampError.
    template <class F>
    auto withClient(F&& use) -> decltype(use(std::declval<samp::SampClient&>()));
    bool send(const QString& what, const QString& recipientId, bool image);
    QString peerName(const QString& id) const;

    MainWindow& window_;
    QMenu* menu_;
    QMenu* imageMenu_;
    QMenu* catalogueMenu_;
    CatalogueProvider catalogue_;
    samp::SampClientOptions options_;
    std::unique_ptr<samp::SampClient> client_;
    QVector<samp::SampPeer> lastPeers_;
    QString lastError_;
    QString lastMessage_;
    bool busy_ = false;
};

} // namespace glint::ui
