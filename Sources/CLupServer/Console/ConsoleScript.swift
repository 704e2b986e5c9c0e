/// The console's one script: the store page's live part. It follows `/console/stores/<id>/live` (server-sent
/// events, the session cookie goes with them) and redraws the line — inside and capacity, called, waiting,
/// in the printer, a pause of the calls and its controls — and each kiosk's state and last contact, with a warning
/// when one needs a person or has been silent over a minute.
/// When the session ends the stream is refused and the page says to reload (the login page follows).
enum ConsoleScript {
    static let text = #"""
        (function(){
        var s=JSON.parse(document.getElementById('strings').textContent),d=document.body.dataset;
        if(!d.store||!window.EventSource||!document.getElementById('inside'))return;
        function $(id){return document.getElementById(id)}
        function codes(id,list){var ul=$(id);ul.textContent='';list.forEach(function(c){var li=document.createElement('li');li.textContent=c;ul.appendChild(li)})}
        var events=new EventSource('/console/stores/'+d.store+'/live');
        // A browser allows six connections to a server: a page left behind must give its stream back.
        window.addEventListener('pagehide',function(){events.close()});
        events.addEventListener('queue',function(e){
          var q=JSON.parse(e.data);
          $('inside').textContent=q.inside;$('capacity').textContent=q.capacity;
          $('opening').textContent=q.opening;$('opening').hidden=!q.opening;
          $('paused').textContent=q.paused;$('paused').hidden=!q.paused;
          $('resume-form').hidden=!q.paused;$('pause-controls').hidden=!!q.paused;
          codes('called',q.called);codes('waiting',q.waiting);codes('printer',q.printer);
          $('waiting-count').textContent=q.waitingCount;
          q.devices.forEach(function(k){
            var row=$('kiosk-'+k.device);if(!row)return;
            var cell=row.querySelector('.contact');cell.textContent=k.contact;cell.classList.toggle('warn',k.silent);
            row.querySelector('.state').textContent=k.state;
            var needs=row.querySelector('.needs');needs.textContent=k.needs;needs.classList.toggle('warn',k.trouble);
          });
        });
        events.addEventListener('error',function(){
          if(events.readyState===2){var p=$('live-ended');p.textContent=s['js.console.ended'];p.hidden=false}
        });
        })();
        """#
}
