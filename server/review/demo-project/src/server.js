// The Node front door: downloads of exported reports, login redirects and a health ping.
const express = require("express");
const fs = require("fs");
const path = require("path");
const { exec } = require("child_process");
const crypto = require("crypto");

const app = express();
const REPORTS = path.join(__dirname, "reports");

app.get("/download", (req, res) => {
  const file = path.join(REPORTS, req.query.name);
  fs.readFile(file, (err, data) => {
    if (err) return res.status(404).send("not found");
    res.send(data);
  });
});

app.get("/login/done", (req, res) => {
  res.redirect(req.query.next);
});

app.get("/ping", (req, res) => {
  exec("ping -c 1 " + req.query.host, (err, stdout) => res.send(stdout));
});

app.post("/calc", express.json(), (req, res) => {
  res.json({ value: eval(req.body.expression) });
});

function hashPassword(password) {
  return crypto.createHash("md5").update(password).digest("hex");
}

module.exports = { app, hashPassword };
