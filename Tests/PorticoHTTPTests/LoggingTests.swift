import Testing

@testable import PorticoHTTP

@Suite struct LoggingTests {
    @Test func jsonStringsAreEscaped() {
        var line: [UInt8] = []
        RequestLogger.appendString("a\"b\\c\n\u{1}é", to: &line)
        #expect(String(decoding: line, as: UTF8.self) == #""a\"b\\c\u000a\u0001é""#)
    }

    @Test func integersAreWrittenInDecimal() {
        for value: UInt64 in [0, 7, 10, 1_234_567_890] {
            var line: [UInt8] = []
            RequestLogger.appendInteger(value, to: &line)
            #expect(String(decoding: line, as: UTF8.self) == String(value))
        }
    }

    @Test func cookieDatesAreIMFFixdate() {
        #expect(Cookie.httpDate(.init(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }
}
