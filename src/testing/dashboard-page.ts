// The mock dashboard's page: one self-contained HTML document (inline CSS and vanilla JS, no framework, no CDN),
// so it works offline and needs no build step. The script below avoids backticks and dollar-brace sequences so that
// it can live in this template literal unchanged. It builds the DOM with textContent only: request bodies are data.

/** The HTML of the mock's dashboard, served at `/`. */
export const DASHBOARD_HTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Mock service dashboard · invoicing-service-sdk</title>
<style>
  :root { color-scheme: light; --fg: #1b1b1b; --muted: #555; --line: #c9c9c9; --bad: #b00020; --ok: #1d6b2f; --band: #f1f3f6; }
  * { box-sizing: border-box; }
  body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); margin: 0; background: #fff; }
  header { padding: 12px 20px; border-bottom: 1px solid var(--line); display: flex; flex-wrap: wrap; gap: 8px 24px; align-items: baseline; }
  header h1 { font-size: 18px; margin: 0; }
  nav ul { list-style: none; display: flex; gap: 14px; margin: 0; padding: 0; flex-wrap: wrap; }
  main { padding: 0 20px 40px; }
  section { margin-top: 24px; }
  h2 { font-size: 16px; margin: 0 0 6px; }
  h3 { font-size: 14px; margin: 14px 0 4px; }
  p { margin: 4px 0; }
  code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
  table { border-collapse: collapse; width: 100%; }
  caption { text-align: left; color: var(--muted); padding: 4px 0; }
  th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
  th { background: #fafafa; font-weight: 600; white-space: nowrap; }
  td.num { text-align: right; white-space: nowrap; }
  .bad { color: var(--bad); font-weight: 600; }
  .ok { color: var(--ok); }
  .muted { color: var(--muted); }
  pre { white-space: pre-wrap; word-break: break-all; margin: 4px 0; background: #f7f7f7; padding: 8px; border: 1px solid var(--line); }
  .pair { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
  button { font: inherit; padding: 2px 10px; cursor: pointer; }
  :focus-visible { outline: 3px solid #1a5fb4; outline-offset: 2px; }
  .sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  .timeline-wrap { overflow-x: auto; border: 1px solid var(--line); }
  .timeline { position: relative; height: 92px; margin: 0; padding: 0; list-style: none;
    background-image: repeating-linear-gradient(to right, var(--band) 0, var(--band) 120px, #fff 120px, #fff 240px); }
  .timeline li.tick { position: absolute; bottom: 0; height: 100%; border-left: 1px dashed #9a9a9a; font-size: 11px; color: var(--muted); padding-left: 2px; display: flex; align-items: flex-end; }
  .timeline li.arrival { position: absolute; top: 0; height: 72px; width: 3px; }
  .timeline .mark { position: absolute; left: -1px; top: 0; bottom: 0; border-left: 3px solid var(--ok); }
  .timeline .refused .mark { border-left: 3px dotted var(--bad); }
  .timeline .label { position: absolute; left: 4px; font-size: 11px; white-space: nowrap; background: rgba(255,255,255,0.85); padding: 0 2px; }
  .timeline .refused .label { color: var(--bad); font-weight: 700; }
  fieldset { border: 1px solid var(--line); margin: 8px 0; }
  label { margin-right: 14px; }
  input[type=number] { width: 7em; }
</style>
</head>
<body>
<header>
  <h1>Mock service dashboard</h1>
  <p>Base URL: <code id="base-url">…</code></p>
  <p role="status" id="live">Connecting…</p>
  <nav aria-label="Sections">
    <ul>
      <li><a href="#requests">Requests</a></li>
      <li><a href="#rate-limit">Rate limit</a></li>
      <li><a href="#documents">Documents and bills</a></li>
      <li><a href="#webhooks">Webhooks</a></li>
      <li><a href="#faults">Faults</a></li>
    </ul>
  </nav>
</header>
<main>
<section id="requests" aria-labelledby="requests-h">
  <h2 id="requests-h">Requests</h2>
  <p class="muted">Keys are shown as the first 12 hex digits of their SHA-256, never as the key. Details show the request and the answer with the key redacted.</p>
  <table>
    <caption>Requests the mock received, newest first (<span id="request-count">0</span>)</caption>
    <thead><tr>
      <th scope="col">Time</th><th scope="col">Key (hash)</th><th scope="col">Method</th><th scope="col">Path</th>
      <th scope="col">Document</th><th scope="col">Status</th><th scope="col">Error code</th>
      <th scope="col">Portal code and meaning</th><th scope="col">Duration</th><th scope="col">Details</th>
    </tr></thead>
    <tbody id="request-rows"></tbody>
  </table>
</section>
<section id="rate-limit" aria-labelledby="rate-h">
  <h2 id="rate-h">Rate limit</h2>
  <p class="muted">One request per second per key. Each mark is an arrival on a time axis whose shaded bands are 1-second windows from the first arrival shown; refused arrivals are dotted, red and labelled 429.</p>
  <div id="timelines"><p class="muted">No requests with a key yet.</p></div>
</section>
<section id="documents" aria-labelledby="documents-h">
  <h2 id="documents-h">Documents and bills</h2>
  <table>
    <caption>The mock's documents and the e-way bill generated for each (<span id="document-count">0</span>)</caption>
    <thead><tr><th scope="col">Document (hash id)</th><th scope="col">Company</th><th scope="col">E-way bill number</th></tr></thead>
    <tbody id="document-rows"></tbody>
  </table>
</section>
<section id="webhooks" aria-labelledby="webhooks-h">
  <h2 id="webhooks-h">Webhooks</h2>
  <p id="receiver" class="muted"></p>
  <form id="test-event">
    <label for="event-type">Event type</label>
    <select id="event-type" name="type"><option value="document">document</option><option value="inventory">inventory</option></select>
    <button type="submit">Send test event</button>
  </form>
  <p role="status" id="webhook-status"></p>
  <table>
    <caption>Webhook deliveries, newest first (<span id="delivery-count">0</span>)</caption>
    <thead><tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">Event id</th><th scope="col">Receiver</th>
      <th scope="col">Answer</th><th scope="col">Duration</th><th scope="col">Action</th></tr></thead>
    <tbody id="delivery-rows"></tbody>
  </table>
</section>
<section id="faults" aria-labelledby="faults-h">
  <h2 id="faults-h">Faults</h2>
  <p class="muted">These stay on for every request until switched off (faults queued with <code>failNext</code> go first). Watch your retries and <code>mayHaveSucceeded</code> handling.</p>
  <form id="fault-form">
    <fieldset>
      <legend>Portal and speed</legend>
      <label><input type="checkbox" id="fault-portal" name="portalDisconnected"> Portal disconnected (e-way bills answer PORTAL_ERROR_111)</label>
      <label><input type="checkbox" id="fault-slow"> Slow answers</label>
      <label for="fault-slow-ms">Delay (ms)</label> <input type="number" id="fault-slow-ms" min="1" max="120000" step="100" value="3000">
    </fieldset>
    <fieldset>
      <legend>Every answer</legend>
      <label><input type="radio" name="answer" value="normal" checked> Normal</label>
      <label><input type="radio" name="answer" value="serverError"> 500 Internal server error</label>
      <label><input type="radio" name="answer" value="loseAnswer"> Drop the answer after generating (the bill exists; the client sees a ConnectionError)</label>
      <label><input type="radio" name="answer" value="drop"> Drop the connection before handling</label>
    </fieldset>
  </form>
  <p role="status" id="fault-status"></p>
  <p id="pending-faults" class="muted"></p>
</section>
</main>
<script>
(function () {
  'use strict';
  var PX_PER_SECOND = 120;
  var requests = [];
  var deliveries = [];
  var hasReceiver = false;

  function $(id) { return document.getElementById(id); }
  function el(tag, text, className) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }
  function pad(n, width) { var s = String(n); while (s.length < width) s = '0' + s; return s; }
  function clock(ms) {
    var d = new Date(ms);
    return pad(d.getHours(), 2) + ':' + pad(d.getMinutes(), 2) + ':' + pad(d.getSeconds(), 2) + '.' + pad(d.getMilliseconds(), 3);
  }
  function keyText(r) { return r.keyHash ? r.keyHash + (r.keyId ? ' (' + r.keyId + ')' : '') : 'no key'; }
  function statusText(r) { return r.status === undefined || r.status === null ? 'dropped' : String(r.status); }
  function row(cells) {
    var tr = document.createElement('tr');
    cells.forEach(function (cell) { tr.appendChild(cell); });
    return tr;
  }

  function requestRows(r) {
    var detailsId = 'request-detail-' + r.seq;
    var status = el('td', statusText(r), 'num');
    if (r.status === undefined || r.status === null || r.status >= 400) status.className += ' bad';
    var portal = el('td', r.portalCode !== undefined && r.portalCode !== null
      ? r.portalCode + ' \\u2014 ' + (r.portalMeaning || 'not in the portal\\'s list') : '');
    var button = el('button', 'Show');
    button.type = 'button';
    button.setAttribute('aria-expanded', 'false');
    button.setAttribute('aria-controls', detailsId);
    button.setAttribute('aria-label', 'Show request ' + r.seq + ' and its answer');
    var actions = el('td');
    actions.appendChild(button);
    var main = row([
      el('td', clock(r.at), 'mono'), el('td', keyText(r), 'mono'), el('td', r.method), el('td', r.path, 'mono'),
      el('td', r.docHashId || '', 'mono'), status, el('td', r.errorCode || ''), portal,
      el('td', r.durationMs + ' ms', 'num'), actions,
    ]);
    main.className = 'request';
    main.setAttribute('data-seq', String(r.seq));
    var cell = el('td');
    cell.colSpan = 10;
    var pair = el('div', null, 'pair');
    var left = el('div'); left.appendChild(el('h3', 'Request')); left.appendChild(el('pre', r.request));
    var right = el('div'); right.appendChild(el('h3', 'Answer')); right.appendChild(el('pre', r.answer));
    pair.appendChild(left); pair.appendChild(right);
    cell.appendChild(pair);
    if (r.fault) cell.appendChild(el('p', 'Scripted fault: ' + r.fault, 'mono'));
    var detail = row([cell]);
    detail.id = detailsId;
    detail.hidden = true;
    button.addEventListener('click', function () {
      var open = detail.hidden;
      detail.hidden = !open;
      button.textContent = open ? 'Hide' : 'Show';
      button.setAttribute('aria-expanded', String(open));
    });
    return [main, detail];
  }

  function addRequest(r) {
    requests.push(r);
    if (requests.length > 500) requests.shift();
    var body = $('request-rows');
    var rows = requestRows(r);
    body.insertBefore(rows[1], body.firstChild);
    body.insertBefore(rows[0], body.firstChild);
    while (body.children.length > 1000) body.removeChild(body.lastChild);
    $('request-count').textContent = String(requests.length);
  }

  function renderTimelines() {
    var byKey = {};
    var order = [];
    requests.forEach(function (r) {
      if (!r.keyHash) return;
      if (!byKey[r.keyHash]) { byKey[r.keyHash] = []; order.push(r.keyHash); }
      byKey[r.keyHash].push(r);
    });
    var host = $('timelines');
    host.textContent = '';
    if (order.length === 0) { host.appendChild(el('p', 'No requests with a key yet.', 'muted')); return; }
    order.forEach(function (hash) {
      var all = byKey[hash];
      var last = all[all.length - 1].at;
      var shown = all.filter(function (r) { return r.at >= last - 30000; }).slice(-100);
      var start = shown[0].at;
      var seconds = Math.max(2, Math.ceil((last - start) / 1000) + 1);
      var refused = shown.filter(function (r) { return r.status === 429; }).length;
      var gaps = [];
      for (var i = 1; i < shown.length; i++) gaps.push(shown[i].at - shown[i - 1].at);
      var heading = el('h3', 'Key ' + keyText(all[0]));
      var id = 'timeline-' + hash;
      heading.id = id + '-h';
      host.appendChild(heading);
      host.appendChild(el('p', shown.length + (shown.length === 1 ? ' arrival' : ' arrivals') + ' in the last ' + seconds + ' s shown, ' + refused +
        ' answered 429' + (gaps.length ? '; shortest gap ' + Math.round(Math.min.apply(null, gaps)) + ' ms' : ''), 'muted'));
      var wrap = el('div', null, 'timeline-wrap');
      var list = el('ol', null, 'timeline');
      list.id = id;
      list.setAttribute('aria-labelledby', id + '-h');
      list.style.width = (seconds * PX_PER_SECOND) + 'px';
      for (var s = 0; s < seconds; s++) {
        var tick = el('li', '+' + s + ' s', 'tick');
        tick.setAttribute('aria-hidden', 'true');
        tick.style.left = (s * PX_PER_SECOND) + 'px';
        list.appendChild(tick);
      }
      shown.forEach(function (r, index) {
        var offset = r.at - start;
        var item = el('li', null, 'arrival' + (r.status === 429 ? ' refused' : ''));
        item.style.left = (offset / 1000 * PX_PER_SECOND) + 'px';
        item.setAttribute('data-status', statusText(r));
        item.appendChild(el('span', null, 'mark'));
        var label = el('span', statusText(r), 'label');
        label.style.top = ((index % 4) * 16) + 'px';
        item.appendChild(label);
        item.appendChild(el('span', ' at +' + (offset / 1000).toFixed(3) + ' s' +
          (r.status === 429 ? ', refused by the rate limit' : ''), 'sr'));
        list.appendChild(item);
      });
      wrap.appendChild(list);
      host.appendChild(wrap);
    });
  }

  function renderDocuments(documents) {
    var body = $('document-rows');
    body.textContent = '';
    documents.forEach(function (d) {
      body.appendChild(row([el('td', d.hashId, 'mono'), el('td', d.companyId, 'mono'),
        el('td', d.ewayBillNumber || 'none yet', d.ewayBillNumber ? 'mono' : 'muted')]));
    });
    $('document-count').textContent = String(documents.length);
  }

  function deliveryRow(d) {
    var answer = d.status !== undefined && d.status !== null ? 'HTTP ' + d.status : 'failed: ' + (d.error || 'no answer');
    var answerCell = el('td', answer, d.status !== undefined && d.status !== null && d.status < 300 ? 'ok' : 'bad');
    var button = el('button', 'Send again');
    button.type = 'button';
    button.setAttribute('aria-label', 'Send ' + d.eventType + ' event ' + d.eventId + ' again');
    button.addEventListener('click', function () {
      button.disabled = true;
      post('/_dashboard/webhooks/resend', { id: d.id }).then(function (result) {
        $('webhook-status').textContent = result.ok
          ? 'Sent again: ' + (result.body && result.body.status ? 'HTTP ' + result.body.status : 'failed')
          : 'Could not send again: ' + (result.body && result.body.error);
      }).finally(function () { button.disabled = false; });
    });
    var action = el('td');
    action.appendChild(button);
    var tr = row([el('td', clock(d.at), 'mono'), el('td', d.eventType), el('td', d.eventId, 'mono'),
      el('td', d.receiver, 'mono'), answerCell, el('td', d.durationMs + ' ms', 'num'), action]);
    tr.className = 'delivery';
    return tr;
  }

  function addDelivery(d) {
    deliveries.push(d);
    var body = $('delivery-rows');
    body.insertBefore(deliveryRow(d), body.firstChild);
    while (body.children.length > 200) body.removeChild(body.lastChild);
    $('delivery-count').textContent = String(deliveries.length);
  }

  function renderFaults(f) {
    $('fault-portal').checked = f.portalDisconnected;
    $('fault-slow').checked = f.slowMs > 0;
    if (f.slowMs > 0) $('fault-slow-ms').value = String(f.slowMs);
    var radios = document.querySelectorAll('input[name=answer]');
    for (var i = 0; i < radios.length; i++) radios[i].checked = radios[i].value === f.answer;
    $('pending-faults').textContent = f.pendingFaults > 0 ? f.pendingFaults + ' one-shot fault(s) queued with failNext.' : '';
  }

  function renderReceiver(receiver) {
    hasReceiver = Boolean(receiver);
    $('receiver').textContent = receiver
      ? 'Receiver: ' + receiver
      : 'No webhook receiver: start the mock with --webhook-url (or pass webhook to startMockServer) to send events.';
  }

  function snapshot(s) {
    $('base-url').textContent = s.baseUrl;
    renderReceiver(s.webhookReceiver);
    requests = [];
    deliveries = [];
    $('request-rows').textContent = '';
    $('delivery-rows').textContent = '';
    s.requests.forEach(addRequest);
    s.deliveries.forEach(addDelivery);
    $('request-count').textContent = String(requests.length);
    $('delivery-count').textContent = String(deliveries.length);
    renderTimelines();
    renderDocuments(s.documents);
    renderFaults(s.faults);
  }

  function post(path, body) {
    return fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      .then(function (response) {
        return response.json().then(function (json) { return { ok: response.ok, body: json }; });
      })
      .catch(function (error) { return { ok: false, body: { error: String(error) } }; });
  }

  function sendFaults() {
    var chosen = document.querySelector('input[name=answer]:checked');
    var slow = Number($('fault-slow-ms').value) || 0;
    post('/_dashboard/faults', {
      portalDisconnected: $('fault-portal').checked,
      slowMs: $('fault-slow').checked ? Math.max(1, Math.round(slow)) : 0,
      answer: chosen ? chosen.value : 'normal',
    }).then(function (result) {
      $('fault-status').textContent = result.ok ? 'Faults updated.' : 'Not updated: ' + result.body.error;
      if (result.ok) renderFaults(result.body);
    });
  }

  $('fault-form').addEventListener('change', sendFaults);
  $('fault-form').addEventListener('submit', function (event) { event.preventDefault(); sendFaults(); });
  $('test-event').addEventListener('submit', function (event) {
    event.preventDefault();
    if (!hasReceiver) { $('webhook-status').textContent = 'No webhook receiver is set.'; return; }
    post('/_dashboard/webhooks/test', { type: $('event-type').value }).then(function (result) {
      $('webhook-status').textContent = result.ok
        ? 'Test event sent: ' + (result.body && result.body.status ? 'HTTP ' + result.body.status : 'failed')
        : 'Not sent: ' + result.body.error;
    });
  });

  var source = new EventSource('/_dashboard/events');
  source.addEventListener('open', function () { $('live').textContent = 'Live: updates as requests arrive.'; });
  source.addEventListener('error', function () { $('live').textContent = 'Disconnected from the mock; retrying…'; });
  source.addEventListener('snapshot', function (event) { snapshot(JSON.parse(event.data)); });
  source.addEventListener('request', function (event) { addRequest(JSON.parse(event.data)); renderTimelines(); });
  source.addEventListener('webhook', function (event) { addDelivery(JSON.parse(event.data)); });
  source.addEventListener('state', function (event) {
    var s = JSON.parse(event.data);
    renderDocuments(s.documents);
    renderFaults(s.faults);
  });
})();
</script>
</body>
</html>
`;
