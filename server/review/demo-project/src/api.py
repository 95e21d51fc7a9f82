"""Stock lookups and bulk imports."""
import pickle
import sqlite3
import subprocess

from flask import Flask, request

app = Flask(__name__)


def db():
    return sqlite3.connect("inventory.db")


@app.route("/items")
def find_items():
    name = request.args.get("name", "")
    cursor = db().cursor()
    cursor.execute(f"SELECT id, name, stock FROM items WHERE name LIKE '%{name}%'")
    return {"items": cursor.fetchall()}


@app.route("/import", methods=["POST"])
def import_items():
    # Bulk imports arrive as a pickled list of rows from the warehouse tool.
    rows = pickle.loads(request.get_data())
    conn = db()
    for row in rows:
        conn.execute("INSERT INTO items (name, stock) VALUES (?, ?)", (row["name"], row["stock"]))
    conn.commit()
    return {"imported": len(rows)}


@app.route("/backup")
def backup():
    target = request.args.get("target", "nightly")
    subprocess.run(f"tar czf /backups/{target}.tgz /var/lib/inventory", shell=True, check=True)
    return {"ok": True}


def low_stock(items, threshold):
    """Items whose stock is below the threshold."""
    return [item for item in items if item["stock"] <= threshold]
