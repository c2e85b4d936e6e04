import Foundation

/// Numbers and layout as they go into the pages (text goes through `MarkupText.escape`).
enum HTMLText {
    /// A coordinate in an SVG: one decimal is finer than any screen shows.
    static func coordinate(_ value: Double) -> String { String(format: "%.1f", value) }

    /// The page's shell: inline CSS only, nothing fetched, no script needed to read it (the
    /// upload page's one script only shows a run's progress). Wide content
    /// (tables, long SQL) scrolls inside its own box, so the page itself never grows
    /// wider than the window (390 px on a phone); a table keeps room for its columns and
    /// breaks its cells between words only, so that a phone scrolls it rather than
    /// stacking its words a letter a line. The charts scale with the page's width;
    /// on a narrow screen their text is set larger in the chart's own units, so that it
    /// stays readable once scaled down.
    static func document(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(MarkupText.escape(title))</title>
        <style>
        *{box-sizing:border-box}
        body{margin:0 auto;max-width:1100px;padding:12px;font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d232a;background:#fff;overflow-wrap:anywhere}
        h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.15em;margin:1.4em 0 .4em}
        .outcome{padding:10px 14px;border-radius:6px;border-left:6px solid #888;background:#f3f4f6}
        .outcome.good{border-color:#1a7f37;background:#e9f6ec}.outcome.warn{border-color:#b76e00;background:#fff4e0}
        .outcome.bad{border-color:#c62828;background:#fdecec}
        .todo{font-weight:600;margin:.4em 0 0}
        .meta{color:#555;font-size:.9em}
        .scroll{overflow-x:auto;max-width:100%}
        table{border-collapse:collapse;font-size:.88em;width:100%}
        th,td{text-align:left;padding:4px 6px;border-bottom:1px solid #e3e3e3;vertical-align:top;overflow-wrap:normal}
        .scroll>table{min-width:560px}
        td.num,th.num{text-align:right;white-space:nowrap}
        svg{width:100%;height:auto;display:block}
        @media (max-width:600px){svg text{font-size:21px}}
        code,pre{font:12px/1.4 ui-monospace,monospace;white-space:pre-wrap;overflow-wrap:anywhere}
        form label{display:block;margin:.6em 0 .2em;font-weight:600}
        form input,form select{font:inherit;max-width:100%}
        form fieldset{border:1px solid #ddd;border-radius:6px;margin:.8em 0;min-width:0}
        button{font:inherit;padding:6px 16px}
        </style>
        </head>
        <body>
        \(body)
        </body>
        </html>

        """
    }
}
