/// The upload page's one script: it posts the form itself, asking for the progress stream
/// (`Accept: text/event-stream`, `ProgressStream`), and shows the upload's progress, then
/// each progress line as it comes (the form hidden meanwhile), then the report page. An answer
/// that is not the stream (an error before the upload was read: 413, 415, 503) is shown as
/// its message. XMLHttpRequest, not fetch: only it reports an upload's progress.
enum UploadProgressScript {
    static let source = """
        (function () {
          var form = document.getElementById("upload");
          if (!form || !window.XMLHttpRequest || !window.FormData) return;
          var section = document.getElementById("progress");
          var bar = document.getElementById("upload-bar");
          var status = document.getElementById("upload-text");
          var lines = document.getElementById("lines");
          var problem = document.getElementById("problem");
          function say(text) {
            problem.textContent = text;
            problem.hidden = false;
            form.hidden = false;
            form.querySelector("button").disabled = false;
          }
          function errorText(body) {
            try { var e = JSON.parse(body).error; return e.code + ": " + e.message; } catch (x) { return body; }
          }
          form.addEventListener("submit", function (event) {
            event.preventDefault();
            var request = new XMLHttpRequest();
            request.open("POST", form.getAttribute("action"));
            request.setRequestHeader("Accept", "text/event-stream");
            section.hidden = false;
            problem.hidden = true;
            lines.textContent = "";
            form.querySelector("button").disabled = true;
            form.hidden = true;
            request.upload.onprogress = function (e) {
              if (!e.lengthComputable) return;
              bar.value = Math.round(100 * e.loaded / e.total);
              status.textContent = "uploading: " + e.loaded + " of " + e.total + " bytes";
            };
            request.upload.onload = function () {
              bar.value = 100;
              status.textContent = "uploaded; the job runs";
            };
            var read = 0, pending = "";
            function take(block) {
              var name = "message", data = [];
              block.split("\\n").forEach(function (line) {
                if (line.indexOf("event: ") === 0) name = line.slice(7);
                else if (line.indexOf("data: ") === 0) data.push(line.slice(6));
              });
              var text = data.join("\\n");
              if (name === "progress") {
                var item = document.createElement("li");
                item.textContent = text;
                lines.appendChild(item);
              } else if (name === "report") {
                document.open();
                document.write(text);
                document.close();
              } else if (name === "error") {
                say(errorText(text));
              }
            }
            function consume() {
              if (request.status !== 200) return;
              pending += request.responseText.slice(read);
              read = request.responseText.length;
              var blocks = pending.split("\\n\\n");
              pending = blocks.pop();
              blocks.forEach(take);
            }
            request.onprogress = consume;
            request.onload = function () {
              if (request.status !== 200) return say(errorText(request.responseText));
              consume();
            };
            request.onerror = function () { say("the connection to the server was lost"); };
            request.send(new FormData(form));
          });
        })();
        """
}
