// libqrencode: QR code symbols for the two-step verification enrollment page.
#ifndef PORTICO_CQRENCODE_SHIM_H
#define PORTICO_CQRENCODE_SHIM_H
#include <qrencode.h>
#endif
