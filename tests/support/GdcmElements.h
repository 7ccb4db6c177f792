// Writing DICOM test files with GDCM: one text element, padded to even length as the standard asks.
#pragma once

#include <gdcmDataElement.h>
#include <gdcmDataSet.h>
#include <gdcmTag.h>
#include <gdcmVR.h>

#include <cstdint>
#include <string>

namespace glint::test {

inline void insertText(gdcm::DataSet& ds, std::uint16_t group, std::uint16_t element, gdcm::VR vr, std::string text) {
    if (text.size() % 2) text += ' ';
    gdcm::DataElement de(gdcm::Tag(group, element));
    de.SetVR(vr);
    de.SetByteValue(text.data(), static_cast<std::uint32_t>(text.size()));
    ds.Replace(de);
}

} // namespace glint::test
