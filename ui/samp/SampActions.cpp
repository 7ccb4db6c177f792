#include "ui/samp/SampActions.h"

#include "ui/AppContext.h"
#include "ui/MainWindow.h"
#include "samp/SampError.h"

#include <QAction>
#include <QFileInfo>
#include <QMenu>
#include <QStatusBar>

namespace glint::ui {

SampActions::SampActions(MainWindow& window)
    : QObject(&window), window_(window), menu_(new QMenu(tr("S&AMP"), &window)),
      imageMenu_(menu_->addMenu(tr("Send &Image To"))), catalogueMenu_(menu_->addMenu(tr("Send &Catalogue To"))) {
    menu_->setToolTipsVisible(true);
    imageMenu_->setToolTipsVisible(true);
    catalogueMenu_->setToolTipsVisible(true);
    imageMenu_->menuAction()->setStatusTip(tr("Send the image's FITS file to TOPCAT, DS9 or another SAMP client"));
    catalogueMenu_->menuAction()->setStatusTip(tr("Send the source catalogue (a FITS table) to TOPCAT, DS9 or another SAMP client"));
    connect(menu_, &QMenu::aboutToShow, this, &SampActions::updateEnabled);
    connect(imageMenu_, &QMenu::aboutToShow, this, [this] { fillMenu(imageMenu_, QString::fromLatin1(kImageMtype), true); });
    connect(catalogueMenu_, &QMenu::aboutToShow, this,
            [this] { fillMenu(catalogueMenu_, QString::fromLatin1(kTableMtype), false); });
    connect(&window.context(), &AppContext::imageChanged, this, &SampActions::updateEnabled);
    updateEnabled();
}

SampActions::~SampActions() = default;

void SampActions::setCatalogueProvider(CatalogueProvider provider) {
    catalogue_ = std::move(provider);
    updateEnabled();
}

QString SampActions::imageFile() const {
    const QString path = window_.context().imagePath();
    if (!window_.context().hasImage() || path.isEmpty() || !samp::SampClient::looksLikeFits(path)) return {};
    return QFileInfo(path).absoluteFilePath();
}

void SampActions::updateEnabled() {
    imageMenu_->menuAction()->setEnabled(!imageFile().isEmpty());
    catalogueMenu_->menuAction()->setEnabled(catalogue_ && !catalogue_().empty());
}

template <class F>
auto SampActions::withClient(F&& use) -> decltype(use(std::declval<samp::SampClient&>())) {
    const bool fresh = !client_;
    if (fresh) client_ = std::make_unique<samp::SampClient>(options_);
    try {
        return use(*client_);
    } catch (const samp::SampError&) {
        client_.reset(); // the hub stopped, restarted (our key is void) or failed: start afresh next time
        if (fresh) throw;
    }
    client_ = std::make_unique<samp::SampClient>(options_);
    try {
        return use(*client_);
    } catch (const samp::SampError&) {
        client_.reset();
        throw;
    }
}

QVector<samp::SampPeer> SampActions::clients(const QString& mtype) {
    lastError_.clear();
    if (busy_) return lastPeers_;
    busy_ = true;
    try {
        lastPeers_ = withClient([&](samp::SampClient& c) { return c.listClients(mtype); });
    } catch (const samp::SampError& e) {
        lastPeers_.clear();
        lastError_ = asSentence(QString::fromStdString(e.what()));
    }
    busy_ = false;
    return lastPeers_;
}

void SampActions::fillMenu(QMenu* menu, const QString& mtype, bool image) {
    menu->clear();
    const QVector<samp::SampPeer> peers = clients(mtype);
    if (!lastError_.isEmpty()) {
        QAction* none = menu->addAction(tr("No SAMP Hub (start TOPCAT or DS9)"));
        none->setEnabled(false);
        none->setToolTip(lastError_);
        window_.statusBar()->showMessage(lastError_, 10000);
        return;
    }
    if (peers.isEmpty()) {
        menu->addAction(image ? tr("No SAMP Client Takes FITS Images") : tr("No SAMP Client Takes FITS Tables"))->setEnabled(false);
        return;
    }
    const auto sendTo = [this, image](const QString& id) { image ? sendImage(id) : sendCatalogue(id); };
    menu->addAction(tr("&All Clients"), this, [sendTo] { sendTo(QString()); });
    menu->addSeparator();
    for (const samp::SampPeer& peer : peers)
        menu->addAction(peer.name, this, [sendTo, id = peer.id] { sendTo(id); })->setToolTip(tr("SAMP client %1").arg(peer.id));
}

QString SampActions::peerName(const QString& id) const {
    for (const samp::SampPeer& peer : lastPeers_)
        if (peer.id == id) return peer.name;
    return id;
}

bool SampActions::sendImage(const QString& recipientId) { return send(tr("image"), recipientId, true); }

bool SampActions::sendCatalogue(const QString& recipientId) { return send(tr("catalogue"), recipientId, false); }

bool SampActions::send(const QString& what, const QString& recipientId, bool image) {
    lastError_.clear();
    lastMessage_.clear();
    QString error;
    if (busy_) return false;
    busy_ = true;
    try {
        QString path;
        if (image) {
            path = imageFile();
            if (path.isEmpty()) throw samp::SampError(tr("the image is not a FITS file on disk: only FITS images can be sent through SAMP").toStdString());
        } else {
            path = catalogue_ ? QString::fromStdString(catalogue_()) : QString();
            if (path.isEmpty()) throw samp::SampError(tr("there is no source catalogue to send").toStdString());
        }
        const samp::SampSent sent = withClient([&](samp::SampClient& c) {
            return image ? c.sendImage(path, QFileInfo(path).fileName(), recipientId)
                         : c.sendTable(path, QFileInfo(path).fileName(), recipientId);
        });
        if (sent.recipients.isEmpty())
            throw samp::SampError(tr("no SAMP client takes FITS %1 (start TOPCAT or DS9)").arg(image ? tr("images") : tr("tables")).toStdString());
        lastMessage_ = sent.recipients.size() == 1
                           ? tr("Sent the %1 %2 to %3 through SAMP").arg(what, QFileInfo(path).fileName(), peerName(sent.recipients.front()))
                           : tr("Sent the %1 %2 to %3 SAMP clients").arg(what, QFileInfo(path).fileName()).arg(sent.recipients.size());
    } catch (const std::exception& e) {
        error = QString::fromStdString(e.what());
    }
    busy_ = false;
    if (!error.isEmpty()) {
        lastError_ = asSentence(error);
        window_.reportError(tr("Cannot send the %1").arg(what), lastError_);
        emit sendFailed(lastError_);
        return false;
    }
    window_.statusBar()->showMessage(lastMessage_, 10000);
    emit sent(lastMessage_);
    return true;
}

} // namespace glint::ui
