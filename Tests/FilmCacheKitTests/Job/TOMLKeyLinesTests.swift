import Testing

@testable import FilmCacheKit

@Suite struct TOMLKeyLinesTests {
    @Test func findsKeysPastStringsCommentsAndMultiLineValues() {
        let text = """
            # rate = 1 in a comment
            title = "rate = 2 # not a comment"
            worklists = [
              "db = 3",  # inside an array
              'burst = 4',
            ]
            notes = \"\"\"
            timeout = 5
            \"\"\"
            literal = '''
            retry_cap = 6
            '''
            "quoted key" = 1
            dotted.part = 2
              rate = 7
            [table]
            db = 8
            [[many]]
            """
        let lines = TOMLKeyLines(text)
        #expect(lines.line(of: "title") == 2)
        #expect(lines.line(of: "worklists") == 3)
        #expect(lines.line(of: "notes") == 7)
        #expect(lines.line(of: "literal") == 10)
        #expect(lines.line(of: "quoted key") == 13)
        #expect(lines.line(of: "dotted") == 14)
        #expect(lines.line(of: "rate") == 15)
        #expect(lines.line(of: "table") == 16)
        #expect(lines.line(of: "many") == 18)
        for key in ["db", "burst", "timeout", "retry_cap"] {
            #expect(lines.line(of: key) == nil, "\(key) is only text inside a value or a table")
        }
    }

    @Test func handlesCRLFLineEnds() {
        let lines = TOMLKeyLines("a = 1\r\nb = [\r\n 1,\r\n]\r\nc = 2\r\n")
        #expect(lines.line(of: "a") == 1 && lines.line(of: "b") == 2 && lines.line(of: "c") == 5)
    }
}
